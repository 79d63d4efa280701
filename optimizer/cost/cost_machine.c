/* optimizer/cost/cost_machine.c: the roofline's machine file: "key value" lines naming a machine's
 * peak arithmetic, memory bandwidth and per-node overhead, and whether views cost nothing
 * (optimizer/cost/machines/cpu-default.txt is one, and the default). Every key may be given
 * once; each but matmul_overhead_us and views (default 0) must be, so a typo is an error, not a
 * silent default. */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost_internal.h"

#ifndef RG_MACHINE_SOURCE_PATH
#error "RG_MACHINE_SOURCE_PATH: optimizer/CMakeLists.txt defines it"
#endif

static const rg_data_file *default_machine(void) {
  return rg_data_find_once("machines/cpu-default.txt", RG_MACHINE_SOURCE_PATH);
}

const char *rg_machine_default_path(void) { return default_machine()->path; }

bool rg_cost_machine_is_default(const char *machine) {
  return !machine || !strcmp(machine, "cpu-default") || rg_path_same_file(machine, rg_machine_default_path());
}

static const struct {
  const char *key;
  size_t offset;
  double lo; /* values must be > lo, or >= lo when lo_ok */
  bool lo_ok;
  bool flag;     /* 0 or 1 */
  bool optional; /* may be left out (0) */
} keys[] = {
    {"peak_gflops", offsetof(rg_machine, peak_gflops), 0, false, false, false},
    {"mem_gbps", offsetof(rg_machine, mem_gbps), 0, false, false, false},
    {"overhead_us", offsetof(rg_machine, overhead_us), 0, true, false, false},
    {"matmul_overhead_us", offsetof(rg_machine, matmul_us), 0, true, false, true},
    {"views", offsetof(rg_machine, views), 0, true, true, true},
};
#define N_KEYS (int)(sizeof keys / sizeof *keys)
#define FIGURE_MAX 1e9

/* One line (NUL-terminated, comment cut): blank, or a key and its value. */
static rg_status parse_line(const char *path, int line, char *s, rg_machine *mc, int *seen,
                            rg_err *err) {
  while (isspace((unsigned char)*s))
    s++;
  if (!*s) return RG_OK;
  char *key = s;
  while (*s && !isspace((unsigned char)*s))
    s++;
  int klen = (int)(s - key);
  while (isspace((unsigned char)*s))
    s++;
  char *val = s, *end = s + strlen(s);
  while (end > val && isspace((unsigned char)end[-1]))
    *--end = 0;
  int k = 0;
  while (k < N_KEYS && !((int)strlen(keys[k].key) == klen && !strncmp(keys[k].key, key, klen)))
    k++;
  if (k == N_KEYS)
    return rg_err_at(err, RG_ERR_PARSE, line, 1,
                     "%s:%d: unknown key '%.*s' (the keys: peak_gflops, mem_gbps, overhead_us, "
                     "matmul_overhead_us, views)",
                     path, line, klen, key);
  if (seen[k])
    return rg_err_at(err, RG_ERR_PARSE, line, 1, "%s:%d: %s given again (first on line %d)", path,
                     line, keys[k].key, seen[k]);
  char *stop;
  errno = 0;
  double v = *val ? strtod(val, &stop) : NAN;
  if (keys[k].flag && strcmp(val, "0") && strcmp(val, "1"))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(val - key) + 1, "%s:%d: %s wants 0 or 1, not '%s'", path,
                     line, keys[k].key, val);
  if (*val && !*stop && errno == ERANGE && fabs(v) < 1) /* strtod's underflow: no float holds it */
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(val - key) + 1,
                     "%s:%d: %s: '%s' is too small to hold (0, or %g at least)", path, line, keys[k].key, val,
                     DBL_MIN);
  if (!*val || *stop || errno || !isfinite(v) || (keys[k].lo_ok ? v < keys[k].lo : v <= keys[k].lo))
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(val - key) + 1,
                     "%s:%d: %s wants a finite number %s 0, not '%s'", path, line, keys[k].key,
                     keys[k].lo_ok ? ">=" : ">", val);
  if (v > FIGURE_MAX) /* a cost past it sums to infinity over a model, and no model is then cheaper */
    return rg_err_at(err, RG_ERR_PARSE, line, (int)(val - key) + 1, "%s:%d: %s wants at most %g, not '%s'", path,
                     line, keys[k].key, FIGURE_MAX, val);
  *(double *)((char *)mc + keys[k].offset) = v;
  seen[k] = line;
  return RG_OK;
}

rg_status rg_machine_path(const char *arg, rg_data_file *f, const char **path, rg_err *err) {
  *path = arg;
  if (!*arg || strchr(arg, '/') || strchr(arg, '.')) return RG_OK;
  char rel[256], source[4096];
  const char *dflt = RG_MACHINE_SOURCE_PATH, *slash = strrchr(dflt, '/');
  snprintf(rel, sizeof rel, "machines/%s.txt", arg);
  snprintf(source, sizeof source, "%.*s/%s.txt", (int)(slash - dflt), dflt, arg);
  rg_data_find(rel, source, f);
  if (!f->found)
    return rg_err_set(err, RG_ERR_IO,
                      "no machine named '%s': tried %s; name a machine file by its path, or one "
                      "shipped in machines/ by its name (cpu-default, gpu-h100)",
                      arg, f->tried[0] ? f->tried : f->path);
  *path = f->path;
  return RG_OK;
}

rg_status rg_machine_read(const char *arg, rg_machine *mc, rg_err *err) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  rg_data_file named;
  const char *path;
  rg_status st = rg_machine_path(arg, &named, &path, err);
  if (!st)
    st = rg_data_check(default_machine(), path, "the default machine file machines/cpu-default.txt",
                       err);
  if (!st) st = rg_text_read_file(path, &sb, err);
  if (st) {
    rg_sb_free(&sb);
    return st;
  }
  memset(mc, 0, sizeof *mc);
  int seen[N_KEYS] = {0}, line = 0;
  char *p = sb.s ? sb.s : "";
  if (sb.s && strlen(sb.s) != sb.len)
    st = rg_err_set(err, RG_ERR_PARSE, "%s: a NUL byte: not a text file", path);
  while (!st && *p) {
    char *nl = strchr(p, '\n'), *next = nl ? nl + 1 : p + strlen(p);
    if (nl) *nl = 0;
    char *hash = strchr(p, '#');
    if (hash) *hash = 0;
    st = parse_line(path, ++line, p, mc, seen, err);
    p = next;
  }
  for (int k = 0; k < N_KEYS && !st; k++)
    if (!seen[k] && !keys[k].optional) st = rg_err_set(err, RG_ERR_PARSE, "%s: no %s given", path, keys[k].key);
  rg_sb_free(&sb);
  return st;
}

void rg_cpu_model(char *buf, size_t n) {
  char line[256];
  snprintf(buf, n, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) || !colon) continue;
    colon++;
    while (*colon == ' ' || *colon == '\t')
      colon++;
    colon[strcspn(colon, "\n")] = 0;
    snprintf(buf, n, "%s", colon);
    break;
  }
  if (f) fclose(f);
}
