
#include <cctype>
#include <set>

#include <nlohmann/json.hpp>

#include "berth/ext/live_objects.h"
#include "berth/extension_chain.hpp"
#include "conformance/suite_context.hpp"
#include "manifest/manifest.hpp"

namespace berth::conformance {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kFail: return "fail";
    case Outcome::kSkip: return "skip";
    case Outcome::kUnsupported: return "unsupported";
  }
  return "fail";
}

std::optional<Outcome> ParseOutcome(std::string_view name) {
  for (Outcome outcome : {Outcome::kPass, Outcome::kFail, Outcome::kSkip, Outcome::kUnsupported}) {
    if (OutcomeName(outcome) == name) return outcome;
  }
  return std::nullopt;
}

bool Report::passed() const { return !results.empty() && Count(Outcome::kFail) == 0; }

int Report::Count(Outcome outcome) const {
  int count = 0;
  for (const CheckResult& result : results) count += result.outcome == outcome ? 1 : 0;
  return count;
}

Result<Expectations> ParseExpectations(std::string_view json_text, std::string_view where) {
  nlohmann::json json = nlohmann::json::parse(json_text, nullptr, false);
  if (!json.is_object()) {
    return InvalidArgumentError(std::string(where) +
                                ": expected outcomes must be a JSON object of check name -> "
                                "\"pass\" | \"fail\" | \"skip\" | \"unsupported\"");
  }
  Expectations out;
  for (const auto& [name, value] : json.items()) {
    std::optional<Outcome> outcome =
        value.is_string() ? ParseOutcome(value.get<std::string>()) : std::nullopt;
    if (!outcome) {
      return InvalidArgumentError(std::string(where) + ": the outcome of \"" + name + "\" is " +
                                  value.dump() +
                                  "; use \"pass\", \"fail\", \"skip\" or \"unsupported\"");
    }
    out[name] = *outcome;
  }
  return out;
}

std::vector<Verdict> Judge(const Report& report, const Expectations& expected) {
  std::vector<Verdict> verdicts;
  std::set<std::string, std::less<>> seen;
  for (const CheckResult& result : report.results) {
    seen.insert(result.name);
    Verdict verdict{result, true, ""};
    auto it = expected.find(result.name);
    if (it != expected.end()) {
      if (result.outcome != it->second) {
        verdict.ok = false;
        verdict.why = "expected " + std::string(OutcomeName(it->second)) + ", got " +
                      std::string(OutcomeName(result.outcome)) +
                      (result.message.empty() ? "" : ": " + result.message);
      }
    } else if (result.outcome == Outcome::kFail) {
      verdict.ok = false;
      verdict.why = "failed: " + result.message;
    }
    verdicts.push_back(std::move(verdict));
  }
  for (const auto& [name, outcome] : expected) {
    if (seen.count(name)) continue;
    verdicts.push_back(Verdict{{name, Outcome::kFail, "the suite did not run this check"}, false,
                               "expected " + std::string(OutcomeName(outcome)) +
                                   ", but the suite did not run this check"});
  }
  return verdicts;
}

std::set<std::string, std::less<>> SplitOpList(std::string_view list) {
  std::set<std::string, std::less<>> ops;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view op = list.substr(start, comma - start);
    while (!op.empty() && op.front() == ' ') op.remove_prefix(1);
    while (!op.empty() && op.back() == ' ') op.remove_suffix(1);
    if (!op.empty()) ops.emplace(op);
    start = comma + 1;
  }
  return ops;
}

CheckResult CompileRefused(const Context& c, std::string name, const Status& status,
                           std::initializer_list<std::string_view> used) {
  const std::string message(status.message());
  if (status.code() != StatusCode::kUnimplemented) {
    return Fail(std::move(name),
                "a valid program was refused with " + status.ToString() +
                    "; a plugin answers UNIMPLEMENTED naming an op (or format) it does not run "
                    "(docs/abi.md)");
  }
  // Whether the message names `what` as a word of its own: an op with or
  // without its dialect ("stablehlo.reduce", "reduce"), an element type
  // ("f32", also as the element of a tensor type: "tensor<4xf32>"). "or"
  // inside "tensors" or "add" inside a file name such as "add_i32.mlir" does
  // not count.
  auto word_at = [&](std::string_view word) {
    auto is_word_char = [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
    };
    auto after_dims = [&](size_t at) {  // "...4x" or "<x" just before `at`
      return at >= 2 && message[at - 1] == 'x' &&
             (std::isdigit(static_cast<unsigned char>(message[at - 2])) ||
              message[at - 2] == '<' || message[at - 2] == '?');
    };
    for (size_t at = message.find(word); at != std::string::npos;
         at = message.find(word, at + 1)) {
      const bool starts = at == 0 || !is_word_char(message[at - 1]) || after_dims(at);
      const size_t end = at + word.size();
      const bool ends = end == message.size() || !is_word_char(message[end]);
      if (starts && ends) return true;
    }
    return false;
  };
  auto names = [&](std::string_view what) {
    if (word_at(what)) return true;
    size_t dot = what.find('.');
    return dot != std::string_view::npos && word_at(what.substr(dot + 1));
  };
  // An element type it does not take is reason enough, listed ops or not.
  for (std::string_view what : used) {
    if (what.find('.') == std::string_view::npos && names(what)) {
      return Unsupported(std::move(name), message);
    }
  }
  if (c.supported_ops) {
    // An op it does not list, named, is reason enough; otherwise a program
    // of listed ops must compile, whatever the refusal names.
    for (std::string_view op : used) {
      if (op.find('.') != std::string_view::npos && !c.supported_ops->count(op) && names(op)) {
        return Unsupported(std::move(name), message);
      }
    }
    for (std::string_view op : used) {
      if (c.supported_ops->count(op)) {
        return Fail(std::move(name), "the plugin lists " + std::string(op) +
                                         " in \"supported_ops\" but answered " +
                                         status.ToString());
      }
    }
  }
  for (std::string_view what : used) {
    if (names(what)) return Unsupported(std::move(name), message);
  }
  if (message.find("stablehlo") != std::string::npos) {
    return Unsupported(std::move(name), message);  // the format itself
  }
  return Fail(std::move(name), "UNIMPLEMENTED without naming the op or format it refuses: " +
                                   status.ToString());
}

namespace {

// objects.none_leaked: once every handle of the suite is destroyed, the
// plugin's live_objects extension (berth/ext/live_objects.h) must count none.
CheckResult NoObjectsLeaked(const core::PluginLibrary& library) {
  const std::string name = "objects.none_leaked";
  const auto* extension = library.Extension<BERTH_LiveObjects_Extension>(
      BERTH_Extension_Type_LiveObjects, BERTH_LiveObjects_Extension_STRUCT_SIZE);
  if (extension == nullptr) {
    if (FindExtension(library.api().extension_start, BERTH_Extension_Type_LiveObjects)) {
      return Fail(name, "its live_objects extension struct is smaller than " +
                            std::to_string(BERTH_LiveObjects_Extension_STRUCT_SIZE) + " bytes");
    }
    return Skip(name, "the plugin offers no live_objects extension (SDK plugins do since ABI 1.1)");
  }
  BERTH_LiveObjects_Count_Args args{};
  args.struct_size = BERTH_LiveObjects_Count_Args_STRUCT_SIZE;
  Status status = library.CallExtension(extension->count, "BERTH_LiveObjects_Count", &args);
  if (!status.ok()) return Fail(name, status.ToString());
  std::string alive;
  auto add = [&](int64_t count, const char* what) {
    if (count == 0) return;
    alive += (alive.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(args.clients, "clients");
  add(args.buffers, "buffers");
  add(args.executables, "executables");
  add(args.events, "events");
  if (alive.empty()) return Pass(name);
  return Fail(name, "still alive after every handle was destroyed: " + alive);
}

}  // namespace

Result<Report> Run(const std::filesystem::path& manifest_path,
                   const std::function<void(const CheckResult&)>& on_result) {
  core::ManifestParseResult parsed = core::LoadManifestFile(manifest_path);
  if (!parsed.manifest) {
    return InvalidArgumentError(parsed.error.message);  // names the manifest
  }
  if (parsed.manifest->kind != core::ManifestKind::kPlugin) {
    return InvalidArgumentError(manifest_path.string() +
                                " describes an extension module; the suite runs on plugins");
  }
  const core::Manifest& manifest = *parsed.manifest;
  Report report;
  report.plugin = manifest.name;
  report.manifest = manifest_path.string();
  auto emit = [&](CheckResult result) {
    if (on_result) on_result(result);
    report.results.push_back(std::move(result));
  };

  // A host that sees this manifest only.
  HostOptions host_options;
  host_options.only_manifests = {manifest_path};
  Result<Host> host = Host::Create(host_options);
  BERTH_RETURN_IF_ERROR(host.status());

  Result<PluginInfo> info = host->Load(manifest.name);
  if (!info.ok()) {
    emit(Fail("load", info.status().ToString()));
    return report;
  }
  report.negotiated_version = info->negotiated_version;
  emit(Pass("load"));

  std::shared_ptr<const core::PluginLibrary> library;
  {
    Context context;
    context.host = &*host;
    context.plugin = manifest.name;
    context.manifest = &manifest;
    context.attributes = info->attributes;
    auto ops = context.attributes.find(BERTH_ATTRIBUTE_SUPPORTED_OPS);
    if (ops != context.attributes.end() && std::holds_alternative<std::string>(ops->second)) {
      context.supported_ops = SplitOpList(std::get<std::string>(ops->second));
    }
    Result<Client> client = context.NewClient();
    emit(FromStatus("client.create", client.status()));
    if (!client.ok()) return report;
    context.client.emplace(std::move(client).value());
    library = context.client->state()->library;
    context.library = library.get();
    context.api = &context.library->api();

    AbiChecks(context, emit);
    LibraryChecks(context, emit);
    ObjectChecks(context, emit);
    ExecuteChecks(context, emit);
    ElementTypeChecks(context, emit);
  }

  // Every object of the suite is gone: a plugin that counts its objects
  // must be back to zero. The host keeps the library loaded.
  emit(NoObjectsLeaked(*library));
  return report;
}

}  // namespace berth::conformance
