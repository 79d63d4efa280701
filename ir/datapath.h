/* ir/datapath.h: where the programs find the data files they read (verify/axioms.rules,
 * optimizer/cost/machines/cpu-default.txt), so that an installed or moved copy works without the
 * source tree. A data file REL (a path under the data folder: "axioms.rules",
 * "machines/cpu-default.txt") is looked for, in this order:
 *   1. $RULEGEN_DATA_DIR/REL when RULEGEN_DATA_DIR is set, and nowhere else (asked for by name);
 *   2. <folder of the running program>/../share/rulegen/REL: the installed layout
 *      (cmake --install puts the programs in PREFIX/bin and the data in PREFIX/share/rulegen);
 *   3. the file in the source tree, for programs of the build tree this code was built in only
 *      (build/tools/, build/tests/): an installed program never reads the source tree.
 * The solver helpers (rulegen-z3, rulegen-cvc5) are programs, not data: verify/solver_helper.c
 * looks for them next to the running program, and in the build tree by the same rule. */
#ifndef RG_IR_DATAPATH_H
#define RG_IR_DATAPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "status.h"

#define RG_DATA_DIR_ENV "RULEGEN_DATA_DIR"

typedef struct {
  bool found;
  char path[4096]; /* the file found; else the first place looked */
  char tried[1024]; /* every place looked at and why it failed ("" when found at once) */
} rg_data_file;

/* Looks for the data file rel in the order above; source: its path in the source tree (NULL:
 * none). Never fails: out->found says whether a readable file was found. */
void rg_data_find(const char *rel, const char *source, rg_data_file *out);

/* rg_data_find once per rel: the first call looks, later ones (from any thread) return what it
 * found, for the program's life. For a module's default file (verify/axioms.c). */
const rg_data_file *rg_data_find_once(const char *rel, const char *source);

/* RG_ERR_IO naming what (e.g. "the axiom file"), every place looked at and how to point at the
 * file, when path is f's default and f was not found; RG_OK otherwise (path is another file, or
 * the default exists). Readers call it before reading path. */
rg_status rg_data_check(const rg_data_file *f, const char *path, const char *what,
                        rg_err *err) RG_MUST_CHECK;

/* Why path cannot be used as a file for access mode (R_OK: data read, X_OK: a program run):
 * "not found", "not a file", "not readable", "not executable" or stat's error; NULL when it
 * can. */
const char *rg_path_unusable(const char *path, int mode);

/* The folder of the running program (/proc/self/exe) into buf; false when unknown. */
bool rg_exe_dir(char *buf, size_t size);

/* Whether the running program lies in the build tree this code was built in (RG_BUILD_DIR):
 * only such programs fall back on paths of the source and build trees. */
bool rg_exe_in_build_tree(void);

/* The per-user cache file or folder name: $XDG_CACHE_HOME/rulegen/NAME, or
 * ~/.cache/rulegen/NAME, into buf (n bytes). RG_ERR_ARG when neither XDG_CACHE_HOME (absolute)
 * nor HOME is set; RG_ERR_LIMIT when it does not fit. */
rg_status rg_user_cache_path(const char *name, char *buf, size_t n, rg_err *err) RG_MUST_CHECK;

/* mkdir -p dir (RG_ERR_IO naming the folder that cannot be made, and why). */
rg_status rg_make_folders(const char *dir, rg_err *err) RG_MUST_CHECK;

#endif
