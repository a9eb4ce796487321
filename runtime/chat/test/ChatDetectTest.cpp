//===- ChatDetectTest.cpp - choosing a template from tokenizer_config -----===//

#include "runtime/chat/ChatTemplate.h"

#include <gtest/gtest.h>

using namespace llmc::chat;

namespace {

/// Qwen2.5-Instruct's template, without the tool-calling details.
const char *const kQwen25Config =
    R"json({
  "eos_token": "<|im_end|>",
  "chat_template": "{%- if tools %}\n)json"
    R"json(    {{- '<|im_start|>system\\n' }}\n)json"
    R"json(    {%- if messages[0]['role'] == 'system' %}\n)json"
    R"json(        {{- messages[0]['content'] }}\n)json"
    R"json(    {%- else %}\n)json"
    R"json(        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n)json"
    R"json(    {%- endif %}\n)json"
    R"json({%- else %}\n)json"
    R"json(    {%- if messages[0]['role'] == 'system' %}\n)json"
    R"json(        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n)json"
    R"json(    {%- else %}\n)json"
    R"json(        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n)json"
    R"json(    {%- endif %}\n)json"
    R"json({%- endif %}\n)json"
    R"json({%- for message in messages %}\n)json"
    R"json(    {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n)json"
    R"json({%- endfor %}\n)json"
    R"json({%- if add_generation_prompt %}\n)json"
    R"json(    {{- '<|im_start|>assistant\\n' }}\n)json"
    R"json({%- endif %}\n)json"
    R"json("
})json";

/// Qwen3's template, without the tool-calling and thinking details.
const char *const kQwen3Config =
    R"json({
  "chat_template": "{%- if messages[0].role == 'system' %}\n)json"
    R"json(    {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n)json"
    R"json({%- endif %}\n)json"
    R"json({%- for message in messages %}\n)json"
    R"json(    {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n)json"
    R"json({%- endfor %}\n)json"
    R"json({%- if add_generation_prompt %}\n)json"
    R"json(    {{- '<|im_start|>assistant\\n' }}\n)json"
    R"json({%- endif %}"
})json";

const char *const kLlama2Config =
    R"json({
  "bos_token": {"content": "<s>", "lstrip": false},
  "chat_template": "{% if messages[0]['role'] == 'system' %})json"
    R"json({% set loop_messages = messages[1:] %})json"
    R"json({% set system_message = messages[0]['content'] %}{% else %})json"
    R"json({% set loop_messages = messages %}{% set system_message = false %})json"
    R"json({% endif %}{% for message in loop_messages %})json"
    R"json({% if loop.index0 == 0 and system_message != false %})json"
    R"json({% set content = '<<SYS>>\\n' + system_message + '\\n<</SYS>>\\n\\n' + message['content'] %})json"
    R"json({% else %}{% set content = message['content'] %}{% endif %})json"
    R"json({% if message['role'] == 'user' %})json"
    R"json({{ bos_token + '[INST] ' + content.strip() + ' [/INST]' }})json"
    R"json({% elif message['role'] == 'assistant' %})json"
    R"json({{ ' '  + content.strip() + ' ' + eos_token }}{% endif %})json"
    R"json({% endfor %}"
})json";

ChatTemplate detectOrFail(std::string_view config, std::string_view modelType) {
  absl::StatusOr<ChatTemplate> chat = ChatTemplate::detect(config, modelType);
  if (!chat.ok()) {
    ADD_FAILURE() << chat.status().message();
    return ChatTemplate();
  }
  return *chat;
}

std::string detectError(std::string_view config) {
  absl::StatusOr<ChatTemplate> chat = ChatTemplate::detect(config, "qwen2");
  if (chat.ok()) {
    ADD_FAILURE() << "detected " << stringifyChatFormat(chat->getFormat());
    return "";
  }
  return std::string(chat.status().message());
}

TEST(ChatDetectTest, ChatMLTemplatesAndTheirDefaultSystemMessage) {
  ChatTemplate qwen25 = detectOrFail(kQwen25Config, "qwen2");
  EXPECT_EQ(qwen25.getFormat(), ChatFormat::ChatML);
  EXPECT_EQ(qwen25.getDefaultSystemPrompt(),
            "You are Qwen, created by Alibaba Cloud. You are a helpful "
            "assistant.");

  ChatTemplate qwen3 = detectOrFail(kQwen3Config, "qwen3");
  EXPECT_EQ(qwen3.getFormat(), ChatFormat::ChatML);
  EXPECT_EQ(qwen3.getDefaultSystemPrompt(), "");

  // The template decides, whatever the model type says; an escaped quote
  // inside the literal is part of the message.
  ChatTemplate custom = detectOrFail(
      R"({"chat_template": "{{ '<|im_start|>system\nDon\\'t panic.<|im_end|>\n' }}"})",
      "llama");
  EXPECT_EQ(custom.getFormat(), ChatFormat::ChatML);
  EXPECT_EQ(custom.getDefaultSystemPrompt(), "Don't panic.");
}

TEST(ChatDetectTest, LlamaTemplates) {
  EXPECT_EQ(detectOrFail(kLlama2Config, "llama").getFormat(),
            ChatFormat::Llama2);
  EXPECT_EQ(
      detectOrFail(R"({"chat_template": "{{ '<|start_header_id|>' }}"})", "")
          .getFormat(),
      ChatFormat::Llama3);
}

TEST(ChatDetectTest, ListOfNamedTemplatesPrefersDefault) {
  const char *config = R"json({"chat_template": [
    {"name": "tool_use", "template": "[INST] tools [/INST]"},
    {"name": "default", "template": "{{ '<|im_start|>' }}"}
  ]})json";
  EXPECT_EQ(detectOrFail(config, "").getFormat(), ChatFormat::ChatML);
  const char *noDefault = R"json({"chat_template": [
    {"name": "tool_use", "template": "[INST] tools [/INST]"},
    {"name": "rag", "template": "{{ '<|im_start|>' }}"}
  ]})json";
  EXPECT_EQ(detectOrFail(noDefault, "").getFormat(), ChatFormat::Llama2);
}

TEST(ChatDetectTest, WithoutATemplateTheModelTypeDecides) {
  for (std::string_view type : {"qwen2", "qwen2_moe", "qwen3", "qwen3_moe"}) {
    ChatTemplate chat = detectOrFail(R"({"eos_token": "<|endoftext|>"})", type);
    EXPECT_EQ(chat.getFormat(), ChatFormat::ChatML) << type;
    EXPECT_EQ(chat.getDefaultSystemPrompt(), "") << type;
  }
  EXPECT_EQ(detectOrFail(R"({"bos_token": "<s>"})", "llama").getFormat(),
            ChatFormat::Llama2);
  EXPECT_EQ(detectOrFail(R"({"added_tokens_decoder": {
                             "128009": {"content": "<|eot_id|>"}}})",
                         "llama")
                .getFormat(),
            ChatFormat::Llama3);
  EXPECT_EQ(detectOrFail(R"({"eos_token": {"content": "<|eot_id|>"}})", "llama")
                .getFormat(),
            ChatFormat::Llama3);
  EXPECT_EQ(detectOrFail(R"({"chat_template": null})", "gpt2").getFormat(),
            ChatFormat::Raw);
  // An unknown template falls back to the model type.
  std::string_view gemma = R"({"chat_template": "<start_of_turn>user"})";
  EXPECT_EQ(detectOrFail(gemma, "gemma").getFormat(), ChatFormat::Raw);
  EXPECT_EQ(detectOrFail(gemma, "qwen2").getFormat(), ChatFormat::ChatML);
  // No tokenizer_config.json at all.
  EXPECT_EQ(detectOrFail("", "qwen3").getFormat(), ChatFormat::ChatML);
  EXPECT_EQ(detectOrFail("", "").getFormat(), ChatFormat::Raw);
}

TEST(ChatDetectTest, MalformedConfigsAreErrors) {
  EXPECT_EQ(detectError("[1, 2]"),
            "tokenizer_config.json: the top level is not an object");
  EXPECT_EQ(detectError(R"({"chat_template": 5})"),
            "tokenizer_config.json: chat_template is neither a string nor a "
            "list of {\"name\", \"template\"} objects");
  EXPECT_EQ(detectError(R"({"chat_template": [{"name": "default"}]})"),
            "tokenizer_config.json: chat_template is neither a string nor a "
            "list of {\"name\", \"template\"} objects");
  std::string truncated = detectError(R"({"chat_template": )");
  EXPECT_EQ(truncated.rfind("tokenizer_config.json: ", 0), 0u) << truncated;
}

} // namespace
