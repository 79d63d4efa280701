/* synth/hollow.h: candidates the pruning removed, held as their text instead of their graph.
 *
 * Why: a parsed depth-4 rule takes about 1.2 KB and its text about 200 bytes. Pruning removes
 * 3.9M of the 7.2M depth-4 candidates before derivability and all but about 150,000 after it,
 * and a removed rule is needed again only for its record (its text) or when a failed proof puts
 * it back (parsed again from that text: the same rule, since the candidates were that text).
 * A hollow rule is NULL in the candidate set; only the code that holds the rg_hollow may meet
 * one.
 */
#ifndef RG_SYNTH_HOLLOW_H
#define RG_SYNTH_HOLLOW_H

#include "ir/ir.h"
#include "ir/textpack.h"
#include "rulesdb/contentid.h"

/* The texts are packed (ir/textpack.h): the first RG_HOLLOW_TRAIN are kept as they are, then a
 * zstd dictionary is trained on them and every later text is compressed with it (about 172
 * bytes to 52 on depth-4 rules with the dictionary's ID in each frame, since left out: 6.8M
 * hollow rules at depth 4 held about 1.1 GB of text). */
#define RG_HOLLOW_TRAIN 20000

typedef struct {
  char **text; /* [n]: the rule's packed text while it is hollow, else NULL (rg_hollow_print) */
  int *line;   /* [n]: its line in the candidates, for messages once it is whole again */
  int n;
  rg_textpack *pack;
} rg_hollow;

rg_status rg_hollow_init(rg_hollow *h, int n, rg_err *err) RG_MUST_CHECK;
/* Room for rules [0, n) (a set that grows while it is parsed); nothing when it has it. */
rg_status rg_hollow_grow(rg_hollow *h, int n, rg_err *err) RG_MUST_CHECK;
void rg_hollow_free(rg_hollow *h);

/* Replaces rule i of rs (whole) by its text: rs->rules[i] is NULL after. */
rg_status rg_hollow_rule(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) RG_MUST_CHECK;

/* Makes rule i whole again (nothing when it is). */
rg_status rg_hollow_restore(rg_hollow *h, rg_ruleset *rs, int i, rg_err *err) RG_MUST_CHECK;

/* Appends rule i's text, whole or hollow, to sb (sb->failed: out of memory, or a packed text
 * that does not unpack). */
void rg_hollow_print(const rg_hollow *h, const rg_ruleset *rs, int i, rg_strbuf *sb);
/* The same with ctx the rg_hollow and rs its rule set's rules (prune/record.h's text function). */
void rg_hollow_text(const void *ctx, const rg_ruleset *rs, int i, rg_strbuf *sb);

/* Rule i's content id (rg_rule_content_id: the digest of its text), whole or hollow. */
rg_status rg_hollow_content_id(const rg_hollow *h, const rg_ruleset *rs, int i, rg_db_id *id,
                               rg_err *err) RG_MUST_CHECK;

#endif
