/* optimizer/cuda/gpu_load.c: the C side of cuda.h's device entry points (rg_gpu_open, _close,
 * _device, _time, _run), plain C without CUDA headers: the first rg_gpu_open of the process
 * finds the CUDA module (rulegen-cuda.so), opens it with dlopen and checks its table; every
 * call then goes through that table. Nothing else of the programs links CUDA, so a program
 * that never asks for a device never loads cudart, cuDNN or cuBLAS.
 *
 * Where the module is, in this order (one place, so that a message names the file used):
 *   1. $RULEGEN_CUDA_MODULE when it is set and not empty (in any build);
 *   2. a build without CUDA (RG_NO_CUDA_WHY set by CMake) has none, and says why;
 *   3. a program of the build tree (ir/datapath.h: rg_exe_in_build_tree) takes the build's
 *      own module, RG_CUDA_MODULE_BUILD_PATH;
 *   4. any other program the installed one, <its folder>/RG_CUDA_MODULE_FROM_BIN.
 * The outcome, the module's table or why there is none, is kept for the process (pthread_once:
 * threads may ask at once), and so is dlopen's handle: a module is never closed once used. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda.h"
#include "ir/datapath.h"

#if !defined RG_CUDA_MODULE_FROM_BIN || !defined RG_CUDA_MODULE_NAME
#error "RG_CUDA_MODULE_FROM_BIN, RG_CUDA_MODULE_NAME: optimizer/cuda/CMakeLists.txt defines them"
#endif

#define MODULE_ENV "RULEGEN_CUDA_MODULE"

/* The process's one module: its table, or why it has none. */
static struct {
  const rg_gpu_module *table; /* NULL: none, why in msg */
  char path[4096];            /* the file looked at ("" when none was) */
  const char *fix;            /* what the user can do about it */
  char msg[8192];
} mod;
static pthread_once_t mod_once = PTHREAD_ONCE_INIT;

/* mod.msg from fmt, whose three %s are the file, what is wrong with it, and what to do. */
static void say(const char *fmt, const char *what) {
  snprintf(mod.msg, sizeof mod.msg, fmt, mod.path, what, mod.fix);
}

/* Fills mod.path and mod.fix from the order above; false (mod.msg said why) when there is no
 * place to look. */
static bool locate(void) {
  const char *env = getenv(MODULE_ENV);
  if (env && *env) {
    mod.fix = "point " MODULE_ENV " at the " RG_CUDA_MODULE_NAME " built with this program, or "
              "unset it (then the build's own or the installed one is used)";
    /* dlopen searches the library path for a name without '/': this names a file */
    snprintf(mod.path, sizeof mod.path, "%s%s", strchr(env, '/') ? "" : "./", env);
    return true;
  }
#ifdef RG_NO_CUDA_WHY
  snprintf(mod.msg, sizeof mod.msg,
           "graphopt was built without CUDA (%s), so it has no CUDA module: build it with CUDA "
           "(where CMake finds nvcc, cuDNN and cuBLAS; not -DRG_CUDA=OFF), or set " MODULE_ENV
           " to the " RG_CUDA_MODULE_NAME " of such a build",
           RG_NO_CUDA_WHY);
  return false;
#else
  if (rg_exe_in_build_tree()) {
    mod.fix = "build it (cmake --build BUILD --target rulegen-cuda), or set " MODULE_ENV
              " to another " RG_CUDA_MODULE_NAME;
    snprintf(mod.path, sizeof mod.path, "%s", RG_CUDA_MODULE_BUILD_PATH);
    return true;
  }
  char dir[2048];
  if (!rg_exe_dir(dir, sizeof dir)) {
    snprintf(mod.msg, sizeof mod.msg,
             "cannot find the CUDA module: the running program's folder is unknown "
             "(/proc/self/exe): set " MODULE_ENV " to its " RG_CUDA_MODULE_NAME);
    return false;
  }
  mod.fix = "install rulegen from a build with CUDA (cmake --install), or set " MODULE_ENV
            " to the " RG_CUDA_MODULE_NAME " of such a build";
  snprintf(mod.path, sizeof mod.path, "%s/" RG_CUDA_MODULE_FROM_BIN "/" RG_CUDA_MODULE_NAME, dir);
  return true;
#endif
}

/* The table of the open module h, when it is one of this interface; NULL (mod.msg) when not. */
static const rg_gpu_module *check_table(void *h) {
  const rg_gpu_module *t = (const rg_gpu_module *)dlsym(h, RG_GPU_MODULE_SYMBOL);
  char what[256];
  if (!t) {
    say("%s is not a rulegen CUDA module (%s): %s", "it has no symbol " RG_GPU_MODULE_SYMBOL);
    return NULL;
  }
  if (t->abi == RG_GPU_ABI && t->table_size == sizeof(rg_gpu_module) &&
      t->op_size == sizeof(rg_gpu_op))
    return t;
  if (t->abi != RG_GPU_ABI)
    snprintf(what, sizeof what, "its interface is version %u, this program's %u", t->abi,
             RG_GPU_ABI);
  else
    snprintf(what, sizeof what,
             "its table and operator are %u and %u bytes, this program's %zu and %zu",
             t->table_size, t->op_size, sizeof(rg_gpu_module), sizeof(rg_gpu_op));
  say("the CUDA module %s is from another build of rulegen (%s): %s", what);
  return NULL;
}

static void load(void) {
  if (!locate()) return;
  const char *why = rg_path_unusable(mod.path, R_OK);
  void *h = why ? NULL : dlopen(mod.path, RTLD_NOW | RTLD_LOCAL);
  if (why) {
    say("the CUDA module %s: %s: %s", why);
  } else if (!h) {
    const char *e = dlerror();
    say("cannot load the CUDA module %s (dlopen: %s): %s", e ? e : "unknown error");
  } else if (!(mod.table = check_table(h))) {
    dlclose(h); /* never used: nothing of it is left running */
  }
}

static const rg_gpu_module *module(void) {
  pthread_once(&mod_once, load);
  return mod.table;
}

rg_gpu_status rg_gpu_open(rg_gpu **out, char *msg, size_t n) {
  *out = NULL;
  const rg_gpu_module *t = module();
  if (!t) return snprintf(msg, n, "%s", mod.msg), RG_GPU_NODEV;
  rg_gpu_status s = t->open(out, msg, n);
  size_t used = s == RG_GPU_NODEV && n ? strlen(msg) : n; /* msg is written when s fails */
  if (used + 1 < n)
    snprintf(msg + used, n - used,
             " (the CUDA module %s loaded, and needs a device: CUDA_VISIBLE_DEVICES names "
             "those it may see)",
             mod.path);
  return s;
}

void rg_gpu_close(rg_gpu *g) {
  if (g) module()->close(g);
}

/* g was opened: the module is loaded */
const char *rg_gpu_device(const rg_gpu *g) { return module()->device(g); }

rg_gpu_status rg_gpu_time(rg_gpu *g, const rg_gpu_op *op, double *us, int64_t *repeats, char *msg,
                          size_t n) {
  return module()->time(g, op, us, repeats, msg, n);
}

rg_gpu_status rg_gpu_run(rg_gpu *g, const rg_gpu_op *op, const float *const *in, float *const *out,
                         char *msg, size_t n) {
  return module()->run(g, op, in, out, msg, n);
}
