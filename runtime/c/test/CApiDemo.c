/*===- CApiDemo.c - the C API from a C program -----------------------------===*\
|*                                                                            *|
|*   c_api_demo MODEL.llmc PROMPT MAX_NEW_TOKENS                              *|
|*                                                                            *|
|* Generates greedily through llmc_c.h and prints the generated ids as        *|
|* "ids: a,b,c" for the test to compare with `llmc run`; checks on the way    *|
|* that the streamed text is the result's, that a callback can end a turn,    *|
|* that a chat answers, and that bad calls fail with a status and a message.  *|
|* Exits non-zero on the first check that fails.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "llmc/llmc_c.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "c_api_demo: check failed at line %d: %s (%s)\n",       \
              __LINE__, #condition, llmc_last_error());                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

struct Stream {
  char text[4096];
  size_t size;
  int tokens;
  /* End the turn after this many tokens; 0: never. */
  int stopAfter;
};

static int collect(void *userData, int32_t id, const char *text, size_t size) {
  struct Stream *stream = (struct Stream *)userData;
  (void)id;
  if (stream->size + size < sizeof(stream->text)) {
    memcpy(stream->text + stream->size, text, size);
    stream->size += size;
    stream->text[stream->size] = '\0';
  }
  ++stream->tokens;
  return stream->stopAfter == 0 || stream->tokens < stream->stopAfter;
}

static void checkBadCalls(llmc_model *model) {
  llmc_model *missing = NULL;
  llmc_result *result = NULL;
  CHECK(llmc_model_load("/nonexistent/model.llmc", NULL, &missing) ==
        LLMC_ERROR_LOAD);
  CHECK(missing == NULL);
  CHECK(strstr(llmc_last_error(), "/nonexistent/model.llmc") != NULL);
  CHECK(llmc_generate(model, NULL, NULL, NULL, NULL, &result) ==
        LLMC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(llmc_last_error(), "prompt is NULL") != NULL);
  CHECK(llmc_generate(NULL, "x", NULL, NULL, NULL, &result) ==
        LLMC_ERROR_INVALID_ARGUMENT);
  llmc_generate_options options;
  llmc_generate_options_init(&options);
  options.temperature = -1.0f;
  CHECK(llmc_generate(model, "x", &options, NULL, NULL, &result) ==
        LLMC_ERROR_GENERATE);
  CHECK(result == NULL);
  CHECK(strlen(llmc_last_error()) > 0);
  /* A success clears the message. */
  llmc_model_free(NULL);
  llmc_result_free(NULL);
  llmc_chat_free(NULL);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: c_api_demo MODEL.llmc PROMPT MAX_NEW_TOKENS\n");
    return 2;
  }
  llmc_model_options modelOptions;
  llmc_model_options_init(&modelOptions);
  modelOptions.threads = 1;
  llmc_model *model = NULL;
  CHECK(llmc_model_load(argv[1], &modelOptions, &model) == LLMC_OK);
  CHECK(strcmp(llmc_last_error(), "") == 0);
  CHECK(llmc_model_vocab_size(model) > 0);

  llmc_generate_options options;
  llmc_generate_options_init(&options);
  options.max_new_tokens = atoi(argv[3]);
  options.stop_at_stop_tokens = 0;
  struct Stream stream = {{0}, 0, 0, 0};
  llmc_result *result = NULL;
  CHECK(llmc_generate(model, argv[2], &options, collect, &stream, &result) ==
        LLMC_OK);
  size_t count = 0;
  const int32_t *ids = llmc_result_ids(result, &count);
  CHECK(count == (size_t)options.max_new_tokens);
  CHECK(stream.tokens == options.max_new_tokens);
  CHECK(strcmp(stream.text, llmc_result_text(result)) == 0);
  CHECK(llmc_result_finish_reason(result) == LLMC_FINISH_MAX_TOKENS);
  CHECK(llmc_result_logits(result, &count) == NULL && count == 0);
  printf("ids: ");
  for (size_t i = 0; i < (size_t)options.max_new_tokens; ++i)
    printf(i ? ",%d" : "%d", ids[i]);
  printf("\n");

  /* The same prompt as ids, logits kept, ended by the callback. */
  int32_t first = ids[0];
  llmc_result_free(result);
  struct Stream stopping = {{0}, 0, 0, 3};
  options.keep_logits = 1;
  int32_t promptIds[] = {2170, 389, 2242, 264, 849};
  CHECK(llmc_generate_ids(model, promptIds, 5, &options, collect, &stopping,
                          &result) == LLMC_OK);
  ids = llmc_result_ids(result, &count);
  CHECK(count == 3);
  CHECK(ids[0] == first);
  CHECK(llmc_result_finish_reason(result) == LLMC_FINISH_CALLBACK);
  CHECK(llmc_result_logits(result, &count) != NULL &&
        count == 3 * (size_t)llmc_model_vocab_size(model));
  llmc_result_free(result);

  llmc_chat *chat = NULL;
  CHECK(llmc_chat_start(model, "You tell fortunes.", &chat) == LLMC_OK);
  options.keep_logits = 0;
  options.max_new_tokens = 4;
  CHECK(llmc_chat_send(chat, "Hello", &options, NULL, NULL, &result) ==
        LLMC_OK);
  llmc_result_ids(result, &count);
  CHECK(count >= 1 && count <= 4);
  llmc_result_free(result);
  llmc_chat_reset(chat);
  llmc_chat_free(chat);

  checkBadCalls(model);
  llmc_model_free(model);
  return 0;
}
