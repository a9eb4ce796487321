/*===- llmc_c.h - the C API for applications and other languages -*- C -*-===*\
|*                                                                            *|
|* A compiled `.llmc` binary from C or through any language's FFI: plain C    *|
|* types, opaque handles, status codes with a message per thread, and a       *|
|* streaming callback.                                                        *|
|*                                                                            *|
|*   llmc_model *model;                                                       *|
|*   if (llmc_model_load("model.llmc", NULL, &model) != LLMC_OK) {           *|
|*     fprintf(stderr, "%s\n", llmc_last_error());                            *|
|*     return 1;                                                              *|
|*   }                                                                        *|
|*   llmc_generate_options options;                                           *|
|*   llmc_generate_options_init(&options);                                    *|
|*   options.max_new_tokens = 32;                                             *|
|*   llmc_result *result;                                                     *|
|*   if (llmc_generate(model, "Once upon a time", &options, print_piece,      *|
|*                     NULL, &result) == LLMC_OK)                             *|
|*     llmc_result_free(result);                                              *|
|*   llmc_model_free(model);                                                  *|
|*                                                                            *|
|* Strings are UTF-8 and NUL-terminated unless a length is given. Every       *|
|* object the library returns is freed by its own `_free` function, which     *|
|* accepts NULL. A model runs one generation at a time; chats on one model    *|
|* must not generate at the same time either. Functions never abort or throw *|
|* across this boundary: a failure returns a status other than LLMC_OK and    *|
|* sets the message llmc_last_error() returns on the calling thread.          *|
|*                                                                            *|
|* The options structs only grow at their end: initialize them with their     *|
|* `_init` function, then set the fields you need.                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef LLMC_RUNTIME_C_LLMC_C_H
#define LLMC_RUNTIME_C_LLMC_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this API: incremented when a function or field is added. */
#define LLMC_C_API_VERSION 1

typedef enum llmc_status {
  LLMC_OK = 0,
  /* A NULL handle or output pointer, or options out of range. */
  LLMC_ERROR_INVALID_ARGUMENT = 1,
  /* The binary is missing, corrupt, or for a chip no plugin provides. */
  LLMC_ERROR_LOAD = 2,
  /* A chat turn does not fit the KV cache: reset the chat and send the turn
     again (the conversation is unchanged). */
  LLMC_ERROR_CACHE_FULL = 3,
  /* Anything else that failed while encoding or generating. */
  LLMC_ERROR_GENERATE = 4,
  /* A failure inside the library (out of memory). */
  LLMC_ERROR_INTERNAL = 5
} llmc_status;

/* Why a turn ended. */
typedef enum llmc_finish_reason {
  /* It chose a stop token (the last generated id). */
  LLMC_FINISH_STOP_TOKEN = 0,
  /* It generated max_new_tokens tokens. */
  LLMC_FINISH_MAX_TOKENS = 1,
  /* The callback returned 0. */
  LLMC_FINISH_CALLBACK = 2,
  /* The KV cache cannot hold another token. */
  LLMC_FINISH_CACHE_FULL = 3
} llmc_finish_reason;

typedef struct llmc_model llmc_model;
typedef struct llmc_chat llmc_chat;
typedef struct llmc_result llmc_result;

/* The message of the last failure on the calling thread ("" when none);
   valid until the thread's next call into the library. */
const char *llmc_last_error(void);

/*===----------------------------------------------------------------------===*
 * Models
 *===----------------------------------------------------------------------===*/

typedef struct llmc_model_options {
  /* Threads per device kernel; 0 uses every hardware thread. */
  unsigned threads;
  /* Hash every section while opening (touches every page of the weights);
     nonzero by default. */
  int verify_checksums;
} llmc_model_options;

void llmc_model_options_init(llmc_model_options *options);

/* Opens the binary at `path` on the device of its chip. `options` may be
   NULL for the defaults. On success *model owns the model. */
llmc_status llmc_model_load(const char *path, const llmc_model_options *options,
                            llmc_model **model);
void llmc_model_free(llmc_model *model);

/* The binary's vocabulary size. */
int64_t llmc_model_vocab_size(const llmc_model *model);

/*===----------------------------------------------------------------------===*
 * Generating
 *===----------------------------------------------------------------------===*/

typedef struct llmc_generate_options {
  /* Tokens generated at most; 0 takes the binary's default. */
  int64_t max_new_tokens;
  /* 0 decodes greedily on the device; a positive temperature samples on the
     host with the fields below. */
  float temperature;
  /* Keep the K most likely tokens; 0 keeps every token. */
  int64_t top_k;
  /* Keep the smallest prefix of the sorted probabilities reaching P; 1
     keeps every candidate. */
  float top_p;
  /* Hugging Face's repetition penalty over the recent tokens; 1 is off. */
  float repetition_penalty;
  uint64_t seed;
  /* End the turn at one of the binary's stop tokens; nonzero by default. */
  int stop_at_stop_tokens;
  /* Read special tokens written in the prompt ("<|im_end|>") as those
     tokens; by default they are text. */
  int parse_special_tokens;
  /* Keep the logits each token was chosen from (llmc_result_logits). */
  int keep_logits;
} llmc_generate_options;

void llmc_generate_options_init(llmc_generate_options *options);

/* Sees each generated token with the UTF-8 text it completes (`size` bytes,
   possibly 0 while a character is incomplete; not NUL-terminated); returns
   nonzero to go on, 0 to end the turn with that token. */
typedef int (*llmc_token_callback)(void *user_data, int32_t id,
                                   const char *text, size_t size);

/* Generates after `prompt`, encoded with the binary's tokenizer (BOS and
   such added), in a fresh context. `options` may be NULL for the defaults,
   `callback` NULL for none. On success *result owns the turn's result. */
llmc_status llmc_generate(llmc_model *model, const char *prompt,
                          const llmc_generate_options *options,
                          llmc_token_callback callback, void *user_data,
                          llmc_result **result);

/* Generates after the `count` token ids `ids` in a fresh context. */
llmc_status llmc_generate_ids(llmc_model *model, const int32_t *ids,
                              size_t count,
                              const llmc_generate_options *options,
                              llmc_token_callback callback, void *user_data,
                              llmc_result **result);

/* The generated ids, the stop token included; *count receives how many. */
const int32_t *llmc_result_ids(const llmc_result *result, size_t *count);
/* Their text, special tokens left out, NUL-terminated. */
const char *llmc_result_text(const llmc_result *result);
llmc_finish_reason llmc_result_finish_reason(const llmc_result *result);
/* [ids, vocab] float logits when keep_logits was set, else NULL; *count
   receives the number of floats. */
const float *llmc_result_logits(const llmc_result *result, size_t *count);
void llmc_result_free(llmc_result *result);

/*===----------------------------------------------------------------------===*
 * Chats
 *===----------------------------------------------------------------------===*/

/* A chat whose turns the binary's chat template renders and whose history
   stays in its own KV cache, opened by `system_prompt` (NULL or "" for
   none). The model must outlive the chat. */
llmc_status llmc_chat_start(llmc_model *model, const char *system_prompt,
                            llmc_chat **chat);
void llmc_chat_free(llmc_chat *chat);

/* Sends a user turn and generates the reply. */
llmc_status llmc_chat_send(llmc_chat *chat, const char *user_text,
                           const llmc_generate_options *options,
                           llmc_token_callback callback, void *user_data,
                           llmc_result **result);

/* Starts a new conversation with the same system prompt. */
void llmc_chat_reset(llmc_chat *chat);

#ifdef __cplusplus
}
#endif

#endif /* LLMC_RUNTIME_C_LLMC_C_H */
