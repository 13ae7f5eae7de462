/* Berth `live_objects` extension: how many of the plugin's objects are alive.
 *
 * A plugin counts the handles it has given out and not yet had destroyed:
 * clients, buffers, loaded executables and events, over every client of the
 * library. Once a host has destroyed every handle it holds, each count must be
 * 0; `berth conformance` checks exactly that (`objects.none_leaked`). Plugins
 * built on the SDK offer it without writing anything (since ABI 1.1); it keeps
 * a plugin to its one exported symbol, BERTH_GetApi.
 *
 * The counts are a snapshot: with other threads creating or destroying objects
 * they may be stale by the time the call returns.
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_LIVE_OBJECTS_H_
#define BERTH_EXT_LIVE_OBJECTS_H_

#include "berth/c_api.h"

/* 1: the first (ABI 1.1). */
#define BERTH_LIVE_OBJECTS_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BERTH_LiveObjects_Count_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  int64_t clients;     /* out */
  int64_t buffers;     /* out */
  int64_t executables; /* out: loaded executables */
  int64_t events;      /* out */
} BERTH_LiveObjects_Count_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LiveObjects_Count_Args, events)

/* Fills the counts of objects alive in the plugin library now.
 * Since: live_objects 1. */
typedef BERTH_Error* BERTH_LiveObjects_Count(BERTH_LiveObjects_Count_Args* args);

typedef struct BERTH_LiveObjects_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_LIVE_OBJECTS_EXTENSION_VERSION */
  BERTH_LiveObjects_Count* count;
} BERTH_LiveObjects_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LiveObjects_Extension, count)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_LIVE_OBJECTS_H_ */
