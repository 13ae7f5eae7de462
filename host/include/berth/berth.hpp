// Everything an application embedding Berth needs.
#ifndef BERTH_BERTH_HPP_
#define BERTH_BERTH_HPP_

#include "berth/buffer.hpp"
#include "berth/client.hpp"
#include "berth/communicator.hpp"
#include "berth/device.hpp"
#include "berth/element_type.hpp"
#include "berth/event.hpp"
#include "berth/executable.hpp"
#include "berth/ffi.hpp"
#include "berth/host.hpp"
#include "berth/log.hpp"
#include "berth/named_value.hpp"
#include "berth/sharded_array.hpp"
#include "berth/status.hpp"

#endif  // BERTH_BERTH_HPP_
