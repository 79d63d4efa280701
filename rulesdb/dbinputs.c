/* rulesdb/dbinputs.c: the input set a database's rules were made over, so that readers can show
 * and record the shapes of their variables. rulegen writes it into the configuration
 * ("input.NAME" = "DIMS", one per input); a database without those keys (one made by import) was
 * made over TASO's inputs (taso_inputs.c names them as rulegen's default set does), plus the bias
 * vectors b1, b2 of rulegen's --ops bias. */
#include <stdio.h>
#include <string.h>

#include "dbexchange.h"

rg_status rg_db_input_set(const rg_db *db, rg_enum_inputset *s, rg_err *err) {
  rg_strbuf text;
  rg_sb_init(&text);
  for (size_t i = 0; i < db->config.n; i++) {
    const rg_db_config *c = &db->config.v[i];
    if (!strncmp(c->key, "input.", 6)) rg_sb_printf(&text, "%s %s\n", c->key + 6, c->value);
  }
  rg_status st = RG_OK;
  if (text.failed) st = rg_err_set(err, RG_ERR_NOMEM, "out of memory");
  else if (text.len) st = rg_enum_inputs_parse(text.s, text.len, s, err);
  else rg_enum_inputs_default(s), rg_enum_inputs_add_bias(s), rg_enum_inputs_add_seamed(s); /* TASO's inputs, as import names them */
  if (st && st != RG_ERR_NOMEM) {
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    st = rg_err_set(err, st, "the configuration's input.* values do not form an input set: %s", msg);
  }
  rg_sb_free(&text);
  return st;
}
