/* cli/fields.c: option values stored by table (cli/fields.h). */
#include "fields.h"

#include <stdlib.h>

#include "args.h"

static const char *option_name(const rg_cli_doc *doc, int code) {
  for (int i = 0; i < doc->n_options; i++)
    if (doc->options[i].flag->code == code) return doc->options[i].flag->name;
  return "?";
}

/* A number field: in range, stored in its type; false when out of range. */
static bool store_number(const rg_cli_field *f, const char *arg, char *member) {
  int64_t v;
  if (!rg_cli_parse_i64(arg, f->lo, f->hi, &v)) return false;
  if (f->kind == RG_CLI_INT) *(int *)member = (int)v;
  else if (f->kind == RG_CLI_U64) *(uint64_t *)member = (uint64_t)v;
  else *(size_t *)member = (size_t)v;
  return true;
}

int rg_cli_field_set(const char *prog, const rg_cli_doc *doc, const rg_cli_field *f, int n, int code,
                     const char *arg, void *base) {
  for (int i = 0; i < n; i++) {
    if (f[i].code != code) continue;
    char *member = (char *)base + f[i].offset;
    switch (f[i].kind) {
    case RG_CLI_TEXT: *(const char **)member = arg; return RG_CLI_GO_ON;
    case RG_CLI_SET: *(bool *)member = true; return RG_CLI_GO_ON;
    case RG_CLI_CLEAR: *(bool *)member = false; return RG_CLI_GO_ON;
    default: break;
    }
    if (store_number(&f[i], arg, member)) return RG_CLI_GO_ON;
    fprintf(stderr, "%s: --%s wants ", prog, option_name(doc, code));
    if (f[i].want) fprintf(stderr, "%s", f[i].want);
    else fprintf(stderr, "a number from %lld to %lld", (long long)f[i].lo, (long long)f[i].hi);
    fprintf(stderr, ", not '%s'\n", arg);
    return 2;
  }
  return RG_CLI_NOT_MINE;
}

int rg_cli_parse(const char *prog, const rg_cli_doc *doc, void (*extra)(FILE *out), const rg_cli_field *f,
                 int n, rg_cli_other other, void *base, int argc, char **argv) {
  rg_cli_getopt g;
  rg_cli_getopt_init(&g, doc->options, doc->n_options);
  int c, rc = RG_CLI_GO_ON;
  while (rc == RG_CLI_GO_ON && (c = rg_cli_getopt_next(&g, argc, argv)) != -1) {
    if (c == 'h') return rg_cli_doc_usage(stdout, doc, extra), 0;
    rc = rg_cli_field_set(prog, doc, f, n, c, optarg, base);
    if (rc == RG_CLI_NOT_MINE && other) rc = other(c, optarg, base);
    if (rc == RG_CLI_NOT_MINE) rg_cli_doc_usage(stderr, doc, extra), rc = 2;
  }
  return rc;
}

bool rg_cli_parse_size(const char *s, size_t *out) {
  char *end;
  double v = strtod(s, &end);
  double mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1024, end++;
  else if (*end == 'M' || *end == 'm') mul = 1048576, end++;
  else if (*end == 'G' || *end == 'g') mul = 1073741824.0, end++;
  if (end == s || *end || !(v > 0) || v * mul > 1e15) return false;
  *out = (size_t)(v * mul);
  return true;
}
