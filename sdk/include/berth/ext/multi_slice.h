/* Berth `multi_slice` extension: the slices of a job.
 *
 * A slice is a group of nodes on a fast fabric; slices are joined by a slower
 * network. A job of several slices (`berth launch --slices S`, or
 * BERTH_SLICE_ID and BERTH_NUM_SLICES in each node's environment) tells each
 * client which slice its node is in: the host hangs one
 * BERTH_MultiSlice_Topology on BERTH_Client_Create_Args.extension_start, only
 * for a plugin whose table lists a BERTH_MultiSlice_Extension (any other
 * plugin is told nothing, and its collectives stay flat). The plugin learns
 * the other nodes' slices as it learns their devices, reports each device's
 * slice, and may run collectives whose group spans slices hierarchically
 * (within each slice first, across slices only what must cross).
 *
 * A node that names another number of slices than the rest of the job is
 * refused at client creation, with both numbers in the message.
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_MULTI_SLICE_H_
#define BERTH_EXT_MULTI_SLICE_H_

#include "berth/c_api.h"

/* 1: the first. */
#define BERTH_MULTI_SLICE_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* On BERTH_Client_Create_Args.extension_start, borrowed for the call. */
typedef struct BERTH_MultiSlice_Topology {
  BERTH_Extension_Base base; /* type BERTH_Extension_Type_MultiSlice */
  int32_t num_slices;        /* at least 1 */
  int32_t slice_id;          /* this node's, in [0, num_slices) */
} BERTH_MultiSlice_Topology;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_MultiSlice_Topology, slice_id)

typedef struct BERTH_MultiSlice_DeviceSlices_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  int32_t num_slices; /* out; 1 when the client was told of no slices */
  /* out; owned by the client, lives as long: the slice of each device, in
   * the order of BERTH_Client_Devices. */
  const int32_t* device_slices;
  size_t num_devices; /* out */
} BERTH_MultiSlice_DeviceSlices_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_MultiSlice_DeviceSlices_Args, num_devices)

/* The slice of every device of the client. Since: multi_slice 1. */
typedef BERTH_Error* BERTH_MultiSlice_DeviceSlices(BERTH_MultiSlice_DeviceSlices_Args* args);

/* In the plugin's table: it takes a topology at client creation. */
typedef struct BERTH_MultiSlice_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_MULTI_SLICE_EXTENSION_VERSION */
  BERTH_MultiSlice_DeviceSlices* device_slices;
} BERTH_MultiSlice_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_MultiSlice_Extension, device_slices)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_MULTI_SLICE_H_ */
