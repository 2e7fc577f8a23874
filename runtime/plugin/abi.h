/* The controller plugin ABI: plain C, versioned, no exceptions and no C++ types across it.
 *
 * A plugin is a shared object exporting one function:
 *
 *   const struct cosi_plugin* cosi_plugin_entry(void);
 *
 * which returns a descriptor that lives as long as the process (plugins are never unloaded).
 * The host refuses a plugin whose abi_major differs from its own or whose abi_minor is newer.
 *
 * Resources cross as the bytes of a cosi.resource.Resource message. Ownership is in the names:
 * a `cosi_view` is borrowed for the duration of the call; anything the callee returns goes
 * through a `cosi_sink` the caller provides, which copies what it is given.
 *
 * Status codes are 0 for success, else 1 + the host's error kind (runtime/base/error.h order);
 * the message then went to the call's error sink.
 *
 * Plugin authors do not write against this file: runtime/plugin/sdk.h turns an ordinary
 * Controller or KeyedController class into a plugin with one macro.
 */
#ifndef COSI_RUNTIME_PLUGIN_ABI_H_
#define COSI_RUNTIME_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COSI_PLUGIN_ABI_MAJOR 1
#define COSI_PLUGIN_ABI_MINOR 0
#define COSI_PLUGIN_ENTRY "cosi_plugin_entry"

typedef struct cosi_view {
  const char* data; /* borrowed */
  size_t size;
} cosi_view;

typedef struct cosi_sink {
  void* context;
  /* Copies size bytes; may be called several times (a list: once per resource). */
  void (*write)(void* context, const char* data, size_t size);
} cosi_sink;

typedef struct cosi_pointer {
  cosi_view ns;
  cosi_view type;
  cosi_view id;
} cosi_pointer;

enum cosi_input_kind { COSI_INPUT_WEAK = 0, COSI_INPUT_STRONG = 1, COSI_INPUT_DESTROY_READY = 2 };
enum cosi_output_kind { COSI_OUTPUT_EXCLUSIVE = 0, COSI_OUTPUT_SHARED = 1 };

typedef struct cosi_input {
  const char* ns;
  const char* type;
  const char* id; /* NULL: the whole kind */
  int32_t kind;   /* enum cosi_input_kind */
} cosi_input;

typedef struct cosi_output {
  const char* type;
  int32_t kind; /* enum cosi_output_kind */
} cosi_output;

enum cosi_outcome_kind {
  COSI_DONE = 0,
  COSI_REQUEUE_AFTER = 1,
  COSI_RETRY = 2,
  COSI_TERMINAL = 3,
  COSI_CRASHED = 4 /* the plugin caught an exception: counted as a crash */
};

typedef struct cosi_outcome {
  int32_t kind;             /* enum cosi_outcome_kind; set by the plugin */
  int64_t requeue_after_ns; /* COSI_REQUEUE_AFTER */
  int32_t error_kind;       /* RETRY / TERMINAL: 1 + error kind */
  cosi_sink message;        /* provided by the host: the error's message goes here */
} cosi_outcome;

enum cosi_log_level { COSI_LOG_DEBUG = 0, COSI_LOG_INFO = 1, COSI_LOG_WARN = 2, COSI_LOG_ERROR = 3 };

/* What a reconcile may do, through the host. Every call is checked against the controller's
 * declarations and stamped with its name, exactly as for an in-tree controller. */
typedef struct cosi_host {
  uint32_t abi_major;
  uint32_t abi_minor;
  void* context; /* pass back as the first argument */

  int32_t (*get)(void* context, cosi_pointer pointer, cosi_sink resource, cosi_sink error);
  int32_t (*list)(void* context, cosi_view ns, cosi_view type, cosi_sink resources, cosi_sink error);
  int32_t (*create)(void* context, cosi_view resource, cosi_sink stored, cosi_sink error);
  /* expected_phase: 0 running, 1 tearingDown, -1 any */
  int32_t (*update)(void* context, cosi_view resource, int32_t expected_phase, cosi_sink stored,
                    cosi_sink error);
  int32_t (*destroy)(void* context, cosi_pointer pointer, cosi_sink error);
  /* *ready: 1 when no finalizers are left */
  int32_t (*teardown)(void* context, cosi_pointer pointer, int32_t* ready, cosi_sink error);
  int32_t (*add_finalizer)(void* context, cosi_pointer pointer, cosi_sink error);
  int32_t (*remove_finalizer)(void* context, cosi_pointer pointer, cosi_sink error);
  void (*log)(void* context, int32_t level, cosi_view message);
  /* Marks an output as written this pass (the plugin found it already right), so the host's
   * clean-up keeps it. */
  int32_t (*keep)(void* context, cosi_pointer pointer, cosi_sink error);
} cosi_host;

enum cosi_controller_shape { COSI_WHOLE_SET = 0, COSI_PER_KEY = 1 };

typedef struct cosi_controller {
  const char* name;
  int32_t shape; /* enum cosi_controller_shape */
  const cosi_input* inputs; /* whole-set: inputs; per-key: primary inputs */
  size_t inputs_len;
  const cosi_input* mapped_inputs; /* per-key only */
  size_t mapped_inputs_len;
  const cosi_output* outputs;
  size_t outputs_len;
  int32_t concurrency; /* per-key only */
  void* instance;      /* the plugin's controller object */

  /* Whole-set: one pass. */
  void (*reconcile)(void* instance, const cosi_host* host, cosi_outcome* outcome);
  /* Per-key: one key. */
  void (*reconcile_key)(void* instance, const cosi_host* host, cosi_pointer key, cosi_outcome* outcome);
  /* Per-key: the keys a mapped input's change concerns, written to `keys` as encoded
   * pointers (ns, type, id, each as a 4-byte little-endian length and the bytes). */
  void (*map)(void* instance, const cosi_host* host, cosi_pointer changed, cosi_sink keys);
} cosi_controller;

typedef struct cosi_plugin {
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* name;
  const cosi_controller* controllers;
  size_t controllers_len;
} cosi_plugin;

typedef const cosi_plugin* (*cosi_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* COSI_RUNTIME_PLUGIN_ABI_H_ */
