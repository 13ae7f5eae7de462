#include "cpu/distributed/gloo_collectives.hpp"

#include <gloo/allgatherv.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include <algorithm>
#include <numeric>

#include "cpu/distributed/gloo_store.hpp"
#include "cpu/distributed/ring_all_reduce.hpp"

namespace berth::cpu {

GlooCollectives::GlooCollectives(const plugin::KeyValueStore& store, int node_id,
                                 std::vector<std::string> addresses, std::chrono::milliseconds timeout,
                                 std::function<void(const Status&)> on_failure)
    : store_(store),
      node_id_(node_id),
      addresses_(std::move(addresses)),
      timeout_(timeout),
      on_failure_(std::move(on_failure)) {}

GlooCollectives::~GlooCollectives() {
  // Contexts hold pairs on the device's event loop: drop them first.
  entries_.clear();
  device_.reset();
}

std::string GlooCollectives::Describe(std::string_view op, const std::string& group,
                                      const std::vector<int>& nodes) const {
  std::string list;
  for (int node : nodes) {
    list += (list.empty() ? "" : ", ") + std::to_string(node);
    if (node >= 0 && static_cast<size_t>(node) < addresses_.size()) list += " (" + addresses_[static_cast<size_t>(node)] + ")";
  }
  return std::string(op) + " across nodes " + list + " (Gloo group '" + group + "', this is node " +
         std::to_string(node_id_) + ")";
}

Status GlooCollectives::Connect(Entry& entry, const std::string& group,
                                const std::vector<int>& nodes) {
  auto self = std::find(nodes.begin(), nodes.end(), node_id_);
  if (self == nodes.end()) {
    return InternalError(Describe("connecting", group, nodes) + ": this node is not a member");
  }
  const int rank = static_cast<int>(self - nodes.begin());
  try {
    std::shared_ptr<gloo::transport::Device> device;
    {
      std::lock_guard lock(mutex_);
      if (!device_) {
        gloo::transport::tcp::attr attr;
        attr.hostname = addresses_.at(static_cast<size_t>(node_id_));
        device_ = gloo::transport::tcp::CreateDevice(attr);
      }
      device = device_;
    }
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, static_cast<int>(nodes.size()));
    context->setTimeout(timeout_);
    GlooStore store(store_, "gloo/" + group + "/", timeout_);
    context->connectFullMesh(store, device);
    entry.context = std::move(context);
    return OkStatus();
  } catch (const GlooStoreError& e) {
    return e.status().WithContext(Describe("connecting", group, nodes));
  } catch (const std::exception& e) {
    return UnavailableError(Describe("connecting", group, nodes) + ": " + e.what());
  }
}

GlooCollectives::Entry& GlooCollectives::EntryFor(const std::string& group) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<Entry>& entry = entries_[group];
  if (!entry) entry = std::make_unique<Entry>();
  return *entry;
}

template <typename Body>
Status GlooCollectives::WithContext(const std::string& group, const std::vector<int>& nodes,
                                    std::string_view op, Body&& body) {
  Entry& entry = EntryFor(group);
  std::lock_guard lock(entry.mutex);
  if (!entry.failed.ok()) return entry.failed;
  if (!entry.context) {
    entry.failed = Connect(entry, group, nodes);
  }
  if (entry.failed.ok()) {
    try {
      Status status = body(entry);
      if (status.ok()) return status;
      entry.failed = status.WithContext(Describe(op, group, nodes));
    } catch (const std::exception& e) {
      entry.failed = UnavailableError(Describe(op, group, nodes) + ": " + e.what());
    }
  }
  if (on_failure_) on_failure_(entry.failed);
  return entry.failed;
}

Status GlooCollectives::AllGather(const std::string& group, const std::vector<int>& nodes,
                                  const void* mine, const std::vector<size_t>& sizes, void* out) {
  return WithContext(group, nodes, "all-gather", [&](Entry& entry) {
    const size_t rank = static_cast<size_t>(entry.context->rank);
    gloo::AllgathervOptions options(entry.context);
    // Gloo's input pointer is not const, but allgatherv only reads it.
    options.setInput(static_cast<char*>(const_cast<void*>(mine)), sizes[rank]);
    options.setOutput(static_cast<char*>(out), sizes);
    options.setTag(entry.next_tag++);
    options.setTimeout(timeout_);
    gloo::allgatherv(options);
    return OkStatus();
  });
}

Status GlooCollectives::AllReduce(const std::string& group, const std::vector<int>& nodes,
                                  const void* in, void* out, size_t count, size_t element_size,
                                  GlooReduceFn reduce) {
  return WithContext(group, nodes, "all-reduce", [&](Entry& entry) {
    RingAllReduceArgs args;
    args.in = in;
    args.out = out;
    args.count = count;
    args.element_size = element_size;
    args.reduce = std::move(reduce);
    args.tag = entry.next_tag++;
    args.timeout = timeout_;
    return RingAllReduce(*entry.context, args);
  });
}

}  // namespace berth::cpu
