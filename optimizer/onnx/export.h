/* optimizer/onnx/export.h: model graphs out as ONNX models.
 *
 * The written model has the original's inputs and outputs (names, order, types), and carries
 * over what graphopt does not model as it was read: the model's fields (IR version, opset
 * imports, producer, domain, version, doc strings, metadata, functions), opaque values'
 * declarations and initializers, the value_info of tensors still written under their names.
 * Nodes of the rule vocabulary become ONNX operators (a bias after a Conv or a 2-D MatMul
 * becomes its bias operand, zero padding before a Conv its pads); values computed from weights
 * alone are folded into initializers; opaque nodes are written as they were read (subgraphs
 * too), reading the values they read, under the names their subgraphs read them by; node names
 * given twice are made unique. Only what the outputs need is written (an initializer nothing
 * reads is dropped, and with it its listing as an input).
 */
#ifndef RG_OPTIMIZER_EXPORT_H
#define RG_OPTIMIZER_EXPORT_H

#include "optimizer/model/model.h"

struct Onnx__ModelProto;

/* The model as an ONNX message (free with onnx__model_proto__free_unpacked), or NULL with err. */
struct Onnx__ModelProto *rg_model_to_onnx(const rg_model *m, rg_err *err);

/* The model seen from roots (NULL: its own; model.h's rg_model_view) as the bytes of the file
 * export writes, every weight inside: *buf (free it) of *len bytes. Errors: rg_model_to_onnx's,
 * RG_ERR_NOMEM. */
rg_status rg_model_to_bytes(const rg_model *m, const rg_ref *roots, uint8_t **buf, size_t *len,
                            rg_err *err) RG_MUST_CHECK;

/* Writes the model to path, whole or not at all (ir/atomic.h), as rg_model_export_with with
 * the default options (external data where the model read had it, or past 2 GiB). */
rg_status rg_model_export(const rg_model *m, const char *path, rg_err *err) RG_MUST_CHECK;

/* Where the weights of a written model go: inside it, or in a side file next to it (ONNX's
 * external data, as onnx.save_model writes it with save_as_external_data,
 * all_tensors_to_one_file and size_threshold). AUTO puts them outside when the model read kept
 * its weights outside (m->side_files) or when the model would pass protobuf's 2 GiB; ALWAYS
 * always; NEVER never (a model past 2 GiB is then an error). */
typedef enum { RG_EXTERNAL_AUTO, RG_EXTERNAL_ALWAYS, RG_EXTERNAL_NEVER } rg_external_mode;
typedef struct {
  rg_external_mode mode;
  const char *location; /* the side file's name, in the model's folder (NULL: the model's name + ".data") */
  size_t threshold;     /* initializers of fewer bytes stay inside (0: 1024, onnx's size_threshold) */
  bool force;           /* the side file may replace one the model was read from, or one of reads */
  const char *const *reads; /* files the run reads (the model, the rules; NULL entries skipped) */
  int n_reads;
} rg_export_opts;
#define RG_EXPORT_THRESHOLD 1024

/* One of the command line's options into o, by its long name: "external-data" (arg: the side
 * file's name, or NULL), "no-external-data", "external-threshold" (arg: bytes, with an optional
 * K, M or G). 1 set; 0 not one of them; -1 a bad value, or --external-data after
 * --no-external-data or the other way round (err says which). */
int rg_export_option(rg_export_opts *o, const char *name, const char *arg, rg_err *err);

/* rg_model_export with where the weights go (o NULL: the defaults). Outside, every initializer
 * of the main graph and tensor attribute of its nodes with at least o->threshold bytes of raw
 * data goes to one side file (offsets aligned to 64 bytes, 4096 from 4 KiB on), written whole
 * or not at all before the model, which names it by its name alone. The side file is refused
 * (RG_ERR_IO or RG_ERR_ARG, before anything is written) when it is a symbolic link, the model
 * itself, one the model read its weights from or one of o->reads (unless o->force), or beside a
 * device or FIFO. */
rg_status rg_model_export_with(const rg_model *m, const char *path, const rg_export_opts *o,
                               rg_err *err) RG_MUST_CHECK;
/* Checks, before the work (a search), that the side file m's export to path would write can be
 * written: the refusals above. RG_OK when there would be none (or only the size of the model
 * written would call for one). */
rg_status rg_export_check_side(const rg_model *m, const char *path, const rg_export_opts *o,
                               rg_err *err) RG_MUST_CHECK;
/* Checks, before the work, the files a run that read m writes: path (-o) and json (--json, NULL:
 * none) are no file m read its weights from (m->side_files; unless o->force, as for the model
 * itself), the side file can be written (rg_export_check_side), and json is not the side file's
 * name beside path wherever one may be written (not --no-external-data, not a device; even with
 * o->force). RG_ERR_ARG naming the option, both paths and what to do. */
rg_status rg_export_check_outputs(const rg_model *m, const char *path, const char *json, const rg_export_opts *o,
                                  rg_err *err) RG_MUST_CHECK;

#endif
