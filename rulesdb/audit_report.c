/* rulesdb/audit_report.c: what `rulesdb audit` says of its result: the signature, the failure
 * lines, the table and the verdict (audit.h). */
#include "audit.h"

void rg_db_audit_signature_line(bool checked, bool verified, bool present, rg_strbuf *out) {
  rg_sb_printf(out, "signature: %s\n", verified   ? "good"
                                       : !checked ? "NOT CHECKED (--allow-unsigned)"
                                       : present  ? "FAILED (see the warning above)"
                                                  : "NONE (unsigned)");
}

rg_audit_verdict rg_db_audit_report(const rg_db *db, const rg_audit_result *res, const rg_strbuf *failures,
                                 bool verified, bool sig_failed, bool interrupted, rg_strbuf *out) {
  rg_sb_puts(out, rg_sb_str(failures));
  rg_sb_printf(out, "%zu of %zu rules audited\n", res->rules_in_scope, db->rules.n);
  rg_audit_print(res, out);
  size_t failed, unchecked;
  rg_audit_totals(res, &failed, &unchecked);
  failed += sig_failed;
  if (failed) return rg_sb_printf(out, "audit: FAILED (%zu failures)\n", failed), RG_AUDIT_FAILED;
  if (unchecked || !verified) {
    rg_sb_printf(out, "audit: no failures, but INCOMPLETE: %zu records not re-checked%s%s\n", unchecked,
                 verified ? "" : "; signature not checked or absent", interrupted ? " (interrupted)" : "");
    return RG_AUDIT_INCOMPLETE;
  }
  rg_sb_puts(out, "audit: passed\n");
  return RG_AUDIT_PASSED;
}
