/* Private to src/yaml: the loader run over one piece of a longer stream (load_stream.c cuts the pieces). Outside
 * src/yaml only src/yaml's unit tests and fuzz targets include it (tests/harness: tree-private). */
#ifndef CMP_YAML_LOAD_PART_H
#define CMP_YAML_LOAD_PART_H
#include "yaml/load.h"

/* For tests only: complete documents go to the parser once this much text holds them (64 KiB unless set; tests make
 * it small to cut often). */
void yaml_stream_piece_bytes(yaml_stream *s, size_t bytes);

/* yaml_load over data, a piece of a stream that starts a document and ends one: lines are reported as lines of
 * the stream (line0 lines come before data), and documents are numbered on from *index, which it advances. */
int load_part(arena *a, strtab *st, const load_limits *lim, const char *file, const char *data, size_t len,
              uint32_t line0, uint32_t *index, yaml_doc_fn fn, void *ud);
#endif
