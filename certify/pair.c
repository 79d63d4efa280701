/* certify/pair.c: building the program pair, hashing it, and the input generator. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include "pair.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

void rg_pet_hex(const uint8_t *h, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) out[2 * i] = digits[h[i] >> 4], out[2 * i + 1] = digits[h[i] & 15];
  out[64] = 0;
}

/* Parses "a=2x3 b=4" into shapes of the rule's variables by name. */
static rg_status bind_shapes(rg_pet_pair *pp, const char *spec, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  uint8_t *bound = calloc((size_t)nt + 1, 1);
  if (!bound) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = RG_OK;
  const char *p = spec ? spec : "";
  while (*p && st == RG_OK) {
    while (*p == ' ' || *p == ',') p++;
    const char *q = p;
    while (*q && *q != ' ' && *q != ',') q++;
    if (q == p) break;
    const char *eq = memchr(p, '=', (size_t)(q - p));
    const char *name = *p == '?' ? p + 1 : p;
    if (!eq && (st = rg_shape_comma_check(spec, p, (int)(q - p), err))) break;
    if (!eq || eq == name) {
      st = rg_err_set(err, RG_ERR_ARG, "bad shape binding '%.*s': expected NAME=DIMS, e.g. x=1x64x56x56",
                      (int)(q - p), p);
      break;
    }
    char nm[RG_RULE_MAX_NAME];
    snprintf(nm, sizeof nm, "%.*s", (int)(eq - name), name);
    int32_t v = rg_graph_find_tvar(pp->rule->g, nm);
    rg_shape s;
    st = rg_shape_parse(eq + 1, (int)(q - eq - 1), &s, err);
    if (st == RG_OK && v >= 0) pp->shapes[v] = s, bound[v] = 1;
    p = q;
  }
  for (int32_t v = 0; v < nt && st == RG_OK; v++)
    if (!bound[v])
      st = rg_err_set(err, RG_ERR_UNBOUND, "tensor variable ?%s has no shape (give it with -s %s=DIMS)",
                      rg_graph_tvar_name(pp->rule->g, v), rg_graph_tvar_name(pp->rule->g, v));
  for (int32_t v = 0; v < nt; v++) pp->shape_ptr[v] = &pp->shapes[v];
  free(bound);
  return st;
}

static char *side_text(const rg_rule *r, int side) {
  rg_strbuf sb;
  rg_sb_init(&sb);
  const rg_ref *refs = side ? r->tgt : r->src;
  for (int k = 0; k < r->n_src; k++) {
    if (k) rg_sb_puts(&sb, " ; ");
    rg_text_print_ref(r->g, refs[k], &sb);
  }
  char *s = sb.failed ? NULL : strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return s;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "NAME=DIMS" lines of the variables marked in `used` (NULL: all), sorted by name. */
static char *shape_list(const rg_pet_pair *pp, const uint8_t *used, const char *sep) {
  const rg_graph *g = pp->rule->g;
  int32_t nt = rg_graph_n_tvars(g), n = 0;
  const char **names = malloc(sizeof *names * ((size_t)nt + 1));
  if (!names) return NULL;
  for (int32_t v = 0; v < nt; v++)
    if (!used || used[v]) names[n++] = rg_graph_tvar_name(g, v);
  qsort(names, (size_t)n, sizeof *names, cmp_names);
  rg_strbuf sb;
  rg_sb_init(&sb);
  for (int32_t i = 0; i < n; i++) {
    char buf[128];
    int32_t v = rg_graph_find_tvar(g, names[i]);
    rg_sb_printf(&sb, "%s%s=%s", i && !strchr(sep, '\n') ? sep : "", names[i],
                 rg_shape_format(&pp->shapes[v], buf, sizeof buf));
    if (strchr(sep, '\n')) rg_sb_puts(&sb, sep);
  }
  free(names);
  char *s = sb.failed ? NULL : strdup(rg_sb_str(&sb));
  rg_sb_free(&sb);
  return s;
}

char *rg_pet_pair_shapes(const rg_pet_pair *pp) { return shape_list(pp, NULL, " "); }

static rg_status hash_side(rg_pet_pair *pp, int side, rg_err *err) {
  const rg_graph *g = pp->rule->g;
  int32_t n = rg_graph_size(g), nt = rg_graph_n_tvars(g);
  uint8_t *mark = calloc((size_t)n + 1, 1), *used = calloc((size_t)nt + 1, 1);
  char *shapes = NULL;
  if (mark && used) {
    rg_graph_mark_reachable(g, side ? pp->rule->tgt : pp->rule->src, pp->rule->n_src, mark);
    for (int32_t id = 0; id < n; id++)
      if (mark[id] && rg_graph_node(g, id)->op == RG_OP_INPUT) used[rg_graph_node(g, id)->params[0]] = 1;
    shapes = shape_list(pp, used, "\n");
  }
  rg_status st = RG_OK;
  if (!shapes) {
    st = rg_err_set(err, RG_ERR_NOMEM, "out of memory hashing a program");
  } else {
    crypto_generichash_state h;
    static const char tag[] = "rulegen-pet-program-v1\n";
    crypto_generichash_init(&h, NULL, 0, 32);
    crypto_generichash_update(&h, (const unsigned char *)tag, sizeof tag - 1);
    crypto_generichash_update(&h, (const unsigned char *)pp->text[side], strlen(pp->text[side]));
    crypto_generichash_update(&h, (const unsigned char *)"\n", 1);
    crypto_generichash_update(&h, (const unsigned char *)shapes, strlen(shapes));
    crypto_generichash_final(&h, pp->hash[side], 32);
  }
  free(shapes);
  free(mark);
  free(used);
  return st;
}

static void le(uint8_t *b, uint64_t v, int n) {
  for (int i = 0; i < n; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t first8(const uint8_t *h) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | h[i];
  return v;
}

uint64_t rg_pet_seed(const rg_pet_pair *pp, rg_z127 p, int trials) {
  static const char tag[] = "rulegen-pet-seed-v1";
  uint8_t buf[sizeof tag - 1 + 64 + 20], out[32];
  size_t n = sizeof tag - 1;
  memcpy(buf, tag, n);
  memcpy(buf + n, pp->hash[0], 32);
  memcpy(buf + n + 32, pp->hash[1], 32);
  n += 64;
  le(buf + n, (uint64_t)p, 8), n += 8;
  if (p >> 64) le(buf + n, (uint64_t)(p >> 64), 8), n += 8; /* p as 8 bytes, or 16 above 2^64 */
  le(buf + n, (uint64_t)(uint32_t)trials, 4), n += 4;
  crypto_generichash(out, 32, buf, n, NULL, 0);
  return first8(out);
}

uint64_t *rg_pet_input_keys(const rg_pet_pair *pp, uint64_t seed, int trials) {
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  uint64_t *keys = malloc(sizeof *keys * ((size_t)trials * (size_t)nt + 1));
  if (!keys) return NULL;
  for (int t = 0; t < trials; t++)
    for (int32_t v = 0; v < nt; v++) {
      static const char tag[] = "rulegen-pet-input-v1";
      uint8_t hd[12], out[32];
      le(hd, seed, 8), le(hd + 8, (uint64_t)(uint32_t)t, 4);
      const char *name = rg_graph_tvar_name(pp->rule->g, v);
      crypto_generichash_state h;
      crypto_generichash_init(&h, NULL, 0, 32);
      crypto_generichash_update(&h, (const unsigned char *)tag, sizeof tag - 1);
      crypto_generichash_update(&h, hd, sizeof hd);
      crypto_generichash_update(&h, (const unsigned char *)name, strlen(name));
      crypto_generichash_final(&h, out, 32);
      keys[(size_t)t * (size_t)nt + (size_t)v] = first8(out);
    }
  return keys;
}

void rg_pet_pair_free(rg_pet_pair *pp) {
  if (!pp) return;
  for (int s = 0; s < 2; s++) {
    rg_boxmap_free(pp->boxes[s]);
    rg_plan_free(pp->plan[s]);
    free(pp->text[s]);
  }
  free(pp->shapes);
  free(pp->shape_ptr);
  rg_rule_free(pp->rule);
  free(pp);
}

/* Puts "what: " in front of err's message, keeping its line and column or not. */
static rg_status prefix_err(rg_err *err, rg_status st, const char *what, bool keep_position) {
  char msg[sizeof err->msg];
  snprintf(msg, sizeof msg, "%s", err->msg);
  int line = keep_position ? err->line : 0, col = keep_position ? err->col : 0;
  return rg_err_at(err, st, line, col, "%s: %s", what, msg);
}

/* Parses one side as a bare graph, to report its errors under its own name. */
static rg_status check_side(const char *what, const char *text, rg_err *err) {
  rg_rule *r = NULL;
  rg_status st = rg_text_parse_rule(text, &r, err);
  if (st == RG_OK && r->n_tgt)
    st = rg_err_set(err, RG_ERR_PARSE, "expected one program, not a rule with '=>'");
  rg_rule_free(r);
  return st ? prefix_err(err, st, what, true) : RG_OK;
}

/* Both programs as one rule 'ORIGINAL => MUTANT', so that they share their variables. */
static rg_status parse_both(const char *original, const char *mutant, rg_pet_pair *pp, rg_err *err) {
  size_t len = strlen(original) + strlen(mutant) + 8;
  char *text = malloc(len);
  if (!text) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  snprintf(text, len, "%s => %s", original, mutant);
  rg_status st = rg_text_parse_rule(text, &pp->rule, err);
  free(text);
  const char *v = st ? strstr(err->msg, "the target uses ?") : NULL;
  if (v) {
    char name[RG_RULE_MAX_NAME];
    snprintf(name, sizeof name, "%s", v + strlen("the target uses "));
    name[strcspn(name, ",")] = 0;
    rg_err_set(err, st, "the mutant uses %s, which the original does not: both programs must read the same inputs",
               name);
  }
  return st;
}

/* Binds the shapes, plans each side and checks that their outputs agree in shape. */
static rg_status plan_sides(rg_pet_pair *pp, const char *shapes, rg_err *err) {
  int32_t nt = rg_graph_n_tvars(pp->rule->g);
  pp->shapes = calloc((size_t)nt + 1, sizeof *pp->shapes);
  pp->shape_ptr = calloc((size_t)nt + 1, sizeof *pp->shape_ptr);
  if (!pp->shapes || !pp->shape_ptr) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  rg_status st = bind_shapes(pp, shapes, err);
  rg_binding b = {pp->shape_ptr, NULL, NULL};
  for (int s = 0; s < 2 && st == RG_OK; s++) {
    st = rg_rule_plan_side(pp->rule, &b, s == 1, &pp->plan[s], err);
    const char *pre = s ? "target: " : "source: ";
    if (st && strncmp(err->msg, pre, strlen(pre)) == 0) {
      char msg[sizeof err->msg];
      snprintf(msg, sizeof msg, "%s", err->msg + strlen(pre));
      rg_err_set(err, st, "%s: %s", s ? "mutant" : "original", msg);
    }
  }
  for (int k = 0; k < pp->rule->n_src && st == RG_OK; k++) {
    const rg_shape *a = rg_plan_shape(pp->plan[0], pp->rule->src[k]);
    const rg_shape *m = rg_plan_shape(pp->plan[1], pp->rule->tgt[k]);
    if (!rg_shape_dims_eq(a, m)) {
      char sa[96], sm[96];
      st = rg_err_set(err, RG_ERR_SHAPE,
                      "output %d has shape %s in the original but %s in the mutant: they must agree",
                      k + 1, rg_shape_format(a, sa, sizeof sa), rg_shape_format(m, sm, sizeof sm));
    }
  }
  return st;
}

/* Each side's boxes, the degree, and each side's canonical text and hash. */
static rg_status analyse_sides(rg_pet_pair *pp, rg_err *err) {
  rg_status st = RG_OK;
  for (int s = 0; s < 2 && st == RG_OK; s++) {
    st = rg_boxes_propagate(pp->plan[s], s ? pp->rule->tgt : pp->rule->src, pp->rule->n_src,
                            &pp->boxes[s], err);
    if (st) prefix_err(err, st, s ? "mutant" : "original", false);
  }
  pp->degree = 1;
  for (int s = 0; s < 2 && st == RG_OK; s++)
    for (int k = 0; k < pp->rule->n_src; k++) {
      int d = rg_boxes_degree(pp->plan[s], s ? pp->rule->tgt[k] : pp->rule->src[k]);
      if (d > pp->degree) pp->degree = d;
    }
  for (int s = 0; s < 2 && st == RG_OK; s++) {
    pp->text[s] = side_text(pp->rule, s);
    if (!pp->text[s]) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
    else st = hash_side(pp, s, err);
  }
  return st;
}

rg_status rg_pet_pair_new(const char *original, const char *mutant, const char *shapes,
                          rg_pet_pair **out, rg_err *err) {
  *out = NULL;
  if (sodium_init() < 0) return rg_err_set(err, RG_ERR_ARG, "libsodium failed to initialise");
  rg_status st = check_side("original", original, err);
  if (st == RG_OK) st = check_side("mutant", mutant, err);
  if (st) return st;
  if (strchr(original, '\n') || strchr(mutant, '\n'))
    return rg_err_set(err, RG_ERR_PARSE, "a program is one line of rule text");
  rg_pet_pair *pp = calloc(1, sizeof *pp);
  if (!pp) return rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  st = parse_both(original, mutant, pp, err);
  if (st == RG_OK) st = plan_sides(pp, shapes, err);
  if (st == RG_OK) st = analyse_sides(pp, err);
  if (st) {
    rg_pet_pair_free(pp);
    return st;
  }
  *out = pp;
  return RG_OK;
}
