#include "abi_version/abi_version_client.hpp"

#include "abi_version/executable_file.hpp"

namespace berth::ext::abi_version {

Result<AbiVersions> RuntimeVersions(const AbiVersionClient& c) {
  if (c.extension == nullptr) return c.library.MissingExtension(BERTH_Extension_Type_AbiVersion);
  BERTH_AbiVersion_Runtime_Args args{};
  args.struct_size = BERTH_AbiVersion_Runtime_Args_STRUCT_SIZE;
  args.client = c.client;
  BERTH_RETURN_IF_ERROR(
      c.library.CallExtension(c.extension->runtime, "BERTH_AbiVersion_Runtime", &args));
  return AbiVersions{args.runtime, args.newest_executable};
}

Result<std::string> Serialize(const AbiVersionClient& c, BERTH_LoadedExecutable* executable,
                              std::string_view name) {
  BERTH_ASSIGN_OR_RETURN(AbiVersions versions, RuntimeVersions(c));
  BERTH_AbiVersion_Serialize_Args args{};
  args.struct_size = BERTH_AbiVersion_Serialize_Args_STRUCT_SIZE;
  args.executable = executable;
  BERTH_RETURN_IF_ERROR(
      c.library.CallExtension(c.extension->serialize, "BERTH_AbiVersion_Serialize", &args));
  // Copy the payload, then hand it back to the plugin.
  std::string payload;
  if (args.payload.data != nullptr) payload.assign(args.payload.data, args.payload.size);
  if (args.payload.release != nullptr) args.payload.release(args.payload.owner);

  ExecutableFileHeader header;
  header.plugin = c.library.name();
  header.platform = std::string(c.platform_name);
  header.api_major = c.library.plugin_major();
  header.api_minor = c.library.negotiated_minor();
  header.runtime = {versions.runtime.major, versions.runtime.minor};
  header.executable = {args.executable_version.major, args.executable_version.minor};
  header.name = std::string(name);
  return EncodeExecutableFile(std::move(header), payload);
}

Result<BERTH_LoadedExecutable*> DeserializeAndLoad(const AbiVersionClient& c,
                                                   std::string_view bytes,
                                                   std::string_view source_name) {
  if (c.extension == nullptr) return c.library.MissingExtension(BERTH_Extension_Type_AbiVersion);
  BERTH_ASSIGN_OR_RETURN(ExecutableFile file, DecodeExecutableFile(bytes, source_name));
  const ExecutableFileHeader& header = file.header;
  const std::string where(source_name);
  const std::string& plugin = c.library.name();
  if (header.plugin != plugin || header.platform != c.platform_name) {
    return FailedPreconditionError(
        where + ": made by plugin '" + header.plugin + "' (platform '" + header.platform +
        "'), not by this client's plugin '" + plugin + "' (platform '" +
        std::string(c.platform_name) + "'); run it with --plugin " + header.plugin +
        " or compile the source again");
  }
  if (header.api_major != BERTH_API_MAJOR) {
    return FailedPreconditionError(where + ": made through Berth C API " +
                                   std::to_string(header.api_major) + "." +
                                   std::to_string(header.api_minor) + "; this host speaks " +
                                   std::to_string(BERTH_API_MAJOR) + ".x");
  }
  BERTH_AbiVersion_IsCompatible_Args check{};
  check.struct_size = BERTH_AbiVersion_IsCompatible_Args_STRUCT_SIZE;
  check.client = c.client;
  check.executable = {header.executable.major, header.executable.minor};
  check.runtime = {header.runtime.major, header.runtime.minor};
  BERTH_RETURN_IF_ERROR(c.library
                            .CallExtension(c.extension->is_compatible,
                                           "BERTH_AbiVersion_IsCompatible", &check)
                            .WithContext(where));
  BERTH_AbiVersion_DeserializeAndLoad_Args load{};
  load.struct_size = BERTH_AbiVersion_DeserializeAndLoad_Args_STRUCT_SIZE;
  load.client = c.client;
  load.payload = file.payload.data();
  load.payload_size = file.payload.size();
  load.executable_version = check.executable;
  BERTH_RETURN_IF_ERROR(c.library
                            .CallExtension(c.extension->deserialize_and_load,
                                           "BERTH_AbiVersion_DeserializeAndLoad", &load)
                            .WithContext(where));
  return load.executable;
}

}  // namespace berth::ext::abi_version
