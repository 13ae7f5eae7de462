#include "ffi/ffi_binding.hpp"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace berth::ext::ffi {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

constexpr std::string_view kWhere = "/x/m.json";

// ------------------------------------------------------------------ parsing

// The error of parsing a one-entry "functions" list.
Status ParseOneError(json entry) {
  Result<std::vector<FunctionSpec>> specs = ParseFfiFunctions(json::array({entry}), kWhere);
  return specs.status();
}

json Entry(json params) {
  return json{{"target", "t.f"}, {"symbol", "f"}, {"return", "void"}, {"params", params}};
}

TEST(ParseFfiFunctionsTest, ParsesEveryRole) {
  json functions = json::parse(R"([
    {"target": "mylib.axpy", "symbol": "axpy_f32", "return": "void",
     "params": ["size:operand:1", "attr:alpha:f32", "operand:0:f32", "result:0",
                "size:result:2:i32", "const:f64:-2.5", "const:i32:-7", "attr:ns:key:i64"],
     "result_init": {"0": "operand:1"}},
    {"target": "mylib.scale", "symbol": "scale_f64", "return": "i32-status", "params": []}
  ])");
  Result<std::vector<FunctionSpec>> specs = ParseFfiFunctions(functions, kWhere);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 2u);
  const FunctionSpec& axpy = (*specs)[0];
  EXPECT_EQ(axpy.target, "mylib.axpy");
  EXPECT_EQ(axpy.symbol, "axpy_f32");
  EXPECT_EQ(axpy.return_kind, ReturnKind::kVoid);
  ASSERT_EQ(axpy.params.size(), 8u);
  EXPECT_EQ(axpy.params[0].role, ParamRole::kOperandSize);
  EXPECT_EQ(axpy.params[0].index, 1u);
  EXPECT_EQ(axpy.params[0].scalar_type, ScalarType::kI64);
  EXPECT_EQ(axpy.params[1].role, ParamRole::kAttr);
  EXPECT_EQ(axpy.params[1].attr_name, "alpha");
  EXPECT_EQ(axpy.params[1].scalar_type, ScalarType::kF32);
  EXPECT_EQ(axpy.params[2].role, ParamRole::kOperand);
  EXPECT_EQ(axpy.params[2].element_type, ElementType::kF32);
  EXPECT_EQ(axpy.params[3].role, ParamRole::kResult);
  EXPECT_FALSE(axpy.params[3].element_type.has_value());
  EXPECT_EQ(axpy.params[4].role, ParamRole::kResultSize);
  EXPECT_EQ(axpy.params[4].index, 2u);
  EXPECT_EQ(axpy.params[4].scalar_type, ScalarType::kI32);
  EXPECT_EQ(axpy.params[5].float_value, -2.5);
  EXPECT_EQ(axpy.params[6].int_value, -7);
  EXPECT_EQ(axpy.params[7].attr_name, "ns:key");
  ASSERT_EQ(axpy.result_init.size(), 1u);
  EXPECT_EQ(axpy.result_init[0].result, 0u);
  EXPECT_EQ(axpy.result_init[0].operand, 1u);
  EXPECT_EQ((*specs)[1].return_kind, ReturnKind::kI32Status);
}

TEST(ParseFfiFunctionsTest, ReturnDefaultsToVoid) {
  Result<std::vector<FunctionSpec>> specs = ParseFfiFunctions(
      json::array({json{{"target", "t"}, {"symbol", "s"}, {"params", json::array()}}}), kWhere);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  EXPECT_EQ((*specs)[0].return_kind, ReturnKind::kVoid);
}

TEST(ParseFfiFunctionsTest, RejectsFunctionsThatAreNotAnArray) {
  Status status = ParseFfiFunctions(json::object(), kWhere).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("manifest /x/m.json: functions: expected an array"));
}

TEST(ParseFfiFunctionsTest, RejectsUnknownRoleNamingEntryAndParam) {
  json functions = json::array({Entry({"operand:0"}), Entry({"operand:0"}), Entry({"operand:0"})});
  functions[1]["target"] = "t.g";
  functions[2]["target"] = "t.h";
  functions[2]["params"] = {"operand:0", "operand:x"};
  Status status = ParseFfiFunctions(functions, kWhere).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "manifest /x/m.json: functions[2].params[1]: unknown role 'operand:x'; expected "
            "operand:K, result:K, size:operand:K, size:result:K, attr:NAME:TYPE or "
            "const:TYPE:VALUE");
}

struct MalformedCase {
  std::string name;
  json entry;
  std::string message;  // a substring of the error
};

TEST(ParseFfiFunctionsTest, RejectsMalformedEntriesNamingTheField) {
  json params = json::array({"operand:0"});
  std::vector<MalformedCase> cases = {
      {"entry not an object", json("f"), "functions[0]: expected an object, got string"},
      {"missing target", json{{"symbol", "f"}, {"params", params}},
       "functions[0].target: is missing"},
      {"empty target", json{{"target", ""}, {"symbol", "f"}, {"params", params}},
       "functions[0].target: expected a non-empty string, got \"\""},
      {"target not a string", json{{"target", 3}, {"symbol", "f"}, {"params", params}},
       "functions[0].target: expected a non-empty string, got 3"},
      {"missing symbol", json{{"target", "t"}, {"params", params}},
       "functions[0].symbol: is missing"},
      {"bad return", json{{"target", "t"}, {"symbol", "f"}, {"return", "int"}, {"params", params}},
       "functions[0].return: \"int\"; expected \"void\" or \"i32-status\""},
      {"missing params", json{{"target", "t"}, {"symbol", "f"}}, "functions[0].params: is missing"},
      {"params not an array", Entry("operand:0"),
       "functions[0].params: expected an array of strings, got string"},
      {"param not a string", Entry({"operand:0", 5}),
       "functions[0].params[1]: expected a string, got 5"},
      {"unknown field", json{{"target", "t"}, {"symbol", "f"}, {"params", params}, {"parms", 1}},
       "functions[0]: unknown field 'parms'"},
      {"empty role", Entry({""}), "functions[0].params[0]: unknown role ''"},
      {"operand without index", Entry({"operand"}), "params[0]: unknown role 'operand'"},
      {"negative index", Entry({"result:-1"}), "params[0]: unknown role 'result:-1'"},
      {"too many pieces", Entry({"operand:0:f32:x"}), "params[0]: unknown role 'operand:0:f32:x'"},
      {"unknown element type", Entry({"operand:0:f33"}),
       "params[0]: 'operand:0:f33': unknown element type 'f33'"},
      {"size of what", Entry({"size:attr:0"}), "params[0]: unknown role 'size:attr:0'"},
      {"size type", Entry({"size:operand:0:f32"}),
       "params[0]: 'size:operand:0:f32': size type 'f32'; expected i32 or i64"},
      {"attr without type", Entry({"attr:alpha"}),
       "params[0]: 'attr:alpha': expected attr:NAME:TYPE with a non-empty NAME"},
      {"attr without name", Entry({"attr::f32"}),
       "params[0]: 'attr::f32': expected attr:NAME:TYPE with a non-empty NAME"},
      {"attr type", Entry({"attr:alpha:f16"}),
       "params[0]: 'attr:alpha:f16': attribute type 'f16'; expected i32, i64, f32 or f64"},
      {"const type", Entry({"const:u8:1"}), "params[0]: 'const:u8:1': constant type 'u8'"},
      {"const fraction for i32", Entry({"const:i32:1.5"}),
       "params[0]: 'const:i32:1.5': '1.5' is not an integer"},
      {"const i32 out of range", Entry({"const:i32:3000000000"}),
       "params[0]: 'const:i32:3000000000': '3000000000' is out of range for i32"},
      {"const i64 out of range", Entry({"const:i64:9223372036854775808"}),
       "is out of range for i64"},
      {"const f32 out of range", Entry({"const:f32:1e40"}),
       "params[0]: 'const:f32:1e40': '1e40' is out of range for f32"},
      {"const trailing junk", Entry({"const:f64:2.5x"}), "'2.5x' is not a number"},
      {"const leading blank", Entry({"const:i64: 4"}), "' 4' is not an integer"},
      {"const leading plus", Entry({"const:i64:+4"}), "'+4' is not an integer"},
      {"const empty", Entry({"const:f64:"}), "'' is not a number"},
      {"const not finite", Entry({"const:f64:inf"}), "'inf' is not a finite number"},
      {"const with extra colon", Entry({"const:f64:1:2"}), "expected const:TYPE:VALUE"},
      {"result_init not an object",
       json{{"target", "t"}, {"symbol", "f"}, {"params", params}, {"result_init", "operand:0"}},
       "functions[0].result_init: expected an object"},
      {"result_init key",
       json{{"target", "t"}, {"symbol", "f"}, {"params", params},
            {"result_init", {{"first", "operand:0"}}}},
       "functions[0].result_init.first: 'first' is not a result index"},
      {"result_init value",
       json{{"target", "t"}, {"symbol", "f"}, {"params", params},
            {"result_init", {{"0", "result:1"}}}},
       "functions[0].result_init.0: \"result:1\"; expected \"operand:K\""},
      {"result_init value not a string",
       json{{"target", "t"}, {"symbol", "f"}, {"params", params}, {"result_init", {{"0", 1}}}},
       "functions[0].result_init.0: 1; expected \"operand:K\""},
      {"too many params", Entry(std::vector<std::string>(65, "operand:0")),
       "functions[0].params: 65 parameters; at most 64"},
  };
  for (const MalformedCase& c : cases) {
    SCOPED_TRACE(c.name);
    Status status = ParseOneError(c.entry);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("manifest /x/m.json: "));
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

TEST(ParseFfiFunctionsTest, AcceptsSixtyFourParams) {
  Result<std::vector<FunctionSpec>> specs =
      ParseFfiFunctions(json::array({Entry(std::vector<std::string>(64, "operand:0"))}), kWhere);
  EXPECT_TRUE(specs.ok()) << specs.status().ToString();
}

TEST(ParseFfiFunctionsTest, RejectsDuplicateTargets) {
  json functions = json::array({Entry({"operand:0"}), Entry({"result:0"})});
  functions[1]["symbol"] = "g";
  Status status = ParseFfiFunctions(functions, kWhere).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "manifest /x/m.json: functions[1].target: 't.f' is already bound by functions[0]");
}

TEST(ParseFfiFunctionsTest, OrdersResultInitByResultIndex) {
  json entry = Entry({"result:0"});
  entry["result_init"] = {{"10", "operand:0"}, {"2", "operand:1"}};
  Result<std::vector<FunctionSpec>> specs = ParseFfiFunctions(json::array({entry}), kWhere);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ((*specs)[0].result_init.size(), 2u);
  EXPECT_EQ((*specs)[0].result_init[0].result, 2u);
  EXPECT_EQ((*specs)[0].result_init[1].result, 10u);
}

// ------------------------------------------------------------------ calling

// A buffer of a call frame with its own dims and data.
struct TestBuffer {
  BERTH_Buffer_Type element_type;
  std::vector<int64_t> dims;
  std::vector<unsigned char> bytes;

  template <typename T>
  static TestBuffer Of(BERTH_Buffer_Type type, std::vector<T> values) {
    TestBuffer buffer{type, {static_cast<int64_t>(values.size())}, {}};
    buffer.bytes.resize(values.size() * sizeof(T));
    std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
    return buffer;
  }

  template <typename T>
  std::vector<T> Values() const {
    std::vector<T> values(bytes.size() / sizeof(T));
    std::memcpy(values.data(), bytes.data(), bytes.size());
    return values;
  }
};

BERTH_NamedValue Int64Attribute(const char* name, int64_t value) {
  BERTH_NamedValue attribute{};
  attribute.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  attribute.name = name;
  attribute.name_size = std::strlen(name);
  attribute.type = BERTH_NamedValue_Type_Int64;
  attribute.int64_value = value;
  attribute.value_size = 1;
  return attribute;
}

BERTH_NamedValue Float64Attribute(const char* name, double value) {
  BERTH_NamedValue attribute = Int64Attribute(name, 0);
  attribute.type = BERTH_NamedValue_Type_Float64;
  attribute.float64_value = value;
  return attribute;
}

BERTH_NamedValue BoolAttribute(const char* name, bool value) {
  BERTH_NamedValue attribute = Int64Attribute(name, 0);
  attribute.type = BERTH_NamedValue_Type_Bool;
  attribute.bool_value = value;
  return attribute;
}

BERTH_NamedValue StringAttribute(const char* name, const char* value) {
  BERTH_NamedValue attribute = Int64Attribute(name, 0);
  attribute.type = BERTH_NamedValue_Type_String;
  attribute.string_value = value;
  attribute.value_size = std::strlen(value);
  return attribute;
}

// Builds a BERTH_Ffi_CallFrame over test buffers and records what the
// handler reports.
class CallFrame {
 public:
  CallFrame(std::vector<TestBuffer> operands, std::vector<TestBuffer> results,
            std::vector<BERTH_NamedValue> attributes = {})
      : operands_(std::move(operands)),
        results_(std::move(results)),
        attributes_(std::move(attributes)) {}

  // Runs `handler` at `stage` with handler_data `data`; returns its code.
  BERTH_Error_Code Run(BERTH_Ffi_Stage stage, void* data,
                       BERTH_Ffi_Handler* handler = BERTH_FfiBinding_Handler) {
    bool execute = stage == BERTH_Ffi_Stage_Execute;
    operand_views_ = Views(operands_, execute);
    result_views_ = Views(results_, execute);
    BERTH_Ffi_CallFrame frame{};
    frame.struct_size = BERTH_Ffi_CallFrame_STRUCT_SIZE;
    frame.stage = stage;
    frame.target = "test";
    frame.target_size = 4;
    frame.platform = "cpu";
    frame.platform_size = 3;
    frame.operands = operand_views_.data();
    frame.num_operands = operand_views_.size();
    frame.results = result_views_.data();
    frame.num_results = result_views_.size();
    frame.attributes = attributes_.data();
    frame.num_attributes = attributes_.size();
    frame.handler_data = data;
    frame.report_error = [](void* context, const char* message, size_t size) {
      static_cast<CallFrame*>(context)->errors_.emplace_back(message, size);
    };
    frame.error_context = this;
    return handler(&frame);
  }

  const std::vector<std::string>& errors() const { return errors_; }
  // The only error reported, or "" when there is not exactly one.
  std::string error() const { return errors_.size() == 1 ? errors_[0] : std::string(); }
  TestBuffer& operand(size_t i) { return operands_[i]; }
  TestBuffer& result(size_t i) { return results_[i]; }

 private:
  static std::vector<BERTH_Ffi_Buffer> Views(std::vector<TestBuffer>& buffers, bool with_data) {
    std::vector<BERTH_Ffi_Buffer> views;
    for (TestBuffer& buffer : buffers) {
      views.push_back(BERTH_Ffi_Buffer{buffer.element_type, buffer.dims.data(), buffer.dims.size(),
                                       with_data ? buffer.bytes.data() : nullptr,
                                       buffer.bytes.size()});
    }
    return views;
  }

  std::vector<TestBuffer> operands_;
  std::vector<TestBuffer> results_;
  std::vector<BERTH_NamedValue> attributes_;
  std::vector<BERTH_Ffi_Buffer> operand_views_;
  std::vector<BERTH_Ffi_Buffer> result_views_;
  std::vector<std::string> errors_;
};

// Binds functions of ffi_testlib, loaded once for all tests.
class BoundFunctionTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    library_ = dlopen(BERTH_FFI_TESTLIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << dlerror();
  }

  static void TearDownTestSuite() {
    if (library_ != nullptr) dlclose(library_);
    library_ = nullptr;
  }

  // Parses one entry and binds it to the testlib symbol it names.
  std::unique_ptr<BoundFunction> Bind(const std::string& entry_json) {
    Result<std::vector<FunctionSpec>> specs =
        ParseFfiFunctions(json::array({json::parse(entry_json)}), kWhere);
    EXPECT_TRUE(specs.ok()) << specs.status().ToString();
    if (!specs.ok()) return nullptr;
    void* symbol = dlsym(library_, (*specs)[0].symbol.c_str());
    EXPECT_NE(symbol, nullptr) << (*specs)[0].symbol;
    Result<std::unique_ptr<BoundFunction>> bound =
        BoundFunction::Create(std::move((*specs)[0]), symbol);
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    return bound.ok() ? std::move(bound).value() : nullptr;
  }

  static int64_t Calls() {
    auto calls = reinterpret_cast<int64_t (*)()>(dlsym(library_, "ffi_testlib_calls"));
    return calls();
  }

  static inline void* library_ = nullptr;
};

constexpr const char* kAxpy = R"({
  "target": "mylib.axpy", "symbol": "axpy_f32", "return": "void",
  "params": ["size:operand:1", "attr:alpha:f32", "operand:0:f32", "result:0:f32"],
  "result_init": {"0": "operand:1"}})";

CallFrame AxpyFrame(std::vector<BERTH_NamedValue> attributes = {Float64Attribute("alpha", 2)}) {
  return CallFrame({TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1, 2, 3}),
                    TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {10, 20, 30})},
                   {TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {0, 0, 0})},
                   std::move(attributes));
}

TEST_F(BoundFunctionTest, AxpyComputesInPlaceOnResultInitCopy) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame = AxpyFrame();
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, axpy.get()), BERTH_Error_Code_OK)
      << frame.error();
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, axpy.get()), BERTH_Error_Code_OK)
      << frame.error();
  EXPECT_EQ(frame.result(0).Values<float>(), (std::vector<float>{12, 24, 36}));
  // The operand result_init copied from is left alone.
  EXPECT_EQ(frame.operand(1).Values<float>(), (std::vector<float>{10, 20, 30}));
  EXPECT_TRUE(frame.errors().empty());
}

TEST_F(BoundFunctionTest, PrepareChecksWithoutCallingTheFunction) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame = AxpyFrame();
  int64_t before = Calls();
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, axpy.get()), BERTH_Error_Code_OK);
  EXPECT_EQ(Calls(), before);
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, axpy.get()), BERTH_Error_Code_OK);
  EXPECT_EQ(Calls(), before + 1);
}

TEST_F(BoundFunctionTest, PrepareRejectsElementTypeNamingTargetAndParameter) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1, 2, 3}),
                   TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1, 2, 3, 4, 5, 6})},
                  {TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {0, 0, 0, 0, 0, 0})},
                  {Float64Attribute("alpha", 2)});
  int64_t before = Calls();
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, axpy.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.axpy': parameter 3 (\"operand:0:f32\"): operand 0 is f64, the "
            "binding declares f32");
  // EXECUTE checks the same and never calls the function.
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, axpy.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(Calls(), before);
}

TEST_F(BoundFunctionTest, PrepareRejectsMissingAttributeNamingIt) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame = AxpyFrame({Float64Attribute("beta", 2), Int64Attribute("gamma", 1)});
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, axpy.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.axpy': parameter 2 (\"attr:alpha:f32\"): attribute 'alpha' is "
            "missing; the call has attributes: beta, gamma");
}

TEST_F(BoundFunctionTest, PrepareRejectsMissingOperandAndResult) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame no_operand({TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1})},
                       {TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1})},
                       {Float64Attribute("alpha", 2)});
  EXPECT_EQ(no_operand.Run(BERTH_Ffi_Stage_Prepare, axpy.get()),
            BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(no_operand.error(),
            "custom call 'mylib.axpy': result_init 0 <- operand 1: operand 1 is missing; the call "
            "has 1 operand");

  std::unique_ptr<BoundFunction> sum = Bind(R"({"target": "t.sum", "symbol": "sum_i32",
      "params": ["operand:0", "size:operand:0", "result:0"]})");
  ASSERT_NE(sum, nullptr);
  CallFrame no_result({TestBuffer::Of<int32_t>(BERTH_Buffer_Type_S32, {1})}, {});
  EXPECT_EQ(no_result.Run(BERTH_Ffi_Stage_Prepare, sum.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(no_result.error(),
            "custom call 't.sum': parameter 3 (\"result:0\"): result 0 is missing; the call has 0 "
            "results");
}

TEST_F(BoundFunctionTest, PrepareRejectsResultInitSizeMismatch) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame({TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1, 2}),
                   TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {1, 2})},
                  {TestBuffer::Of<float>(BERTH_Buffer_Type_F32, {0, 0, 0})},
                  {Float64Attribute("alpha", 2)});
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, axpy.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.axpy': result_init 0 <- operand 1: result 0 has 12 bytes, operand "
            "1 has 8");
}

constexpr const char* kScale = R"({
  "target": "mylib.scale", "symbol": "scale_f64", "return": "i32-status",
  "params": ["operand:0:f64", "result:0:f64", "size:operand:0:i32", "attr:factor:f64"]})";

TEST_F(BoundFunctionTest, StatusFunctionWithI32SizeScales) {
  std::unique_ptr<BoundFunction> scale = Bind(kScale);
  ASSERT_NE(scale, nullptr);
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1, -2, 0.5})},
                  {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0, 0, 0})},
                  {Float64Attribute("factor", 4)});
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get()), BERTH_Error_Code_OK) << frame.error();
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, scale.get()), BERTH_Error_Code_OK)
      << frame.error();
  EXPECT_EQ(frame.result(0).Values<double>(), (std::vector<double>{4, -8, 2}));
}

TEST_F(BoundFunctionTest, NonZeroStatusFailsWithTheCode) {
  std::unique_ptr<BoundFunction> scale = Bind(kScale);
  ASSERT_NE(scale, nullptr);
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1})},
                  {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Float64Attribute("factor", 0)});
  // PREPARE cannot know what the function will return.
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get()), BERTH_Error_Code_OK);
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, scale.get()), BERTH_Error_Code_INTERNAL);
  EXPECT_EQ(frame.error(), "custom call 'mylib.scale': function 'scale_f64' returned status 3");
}

TEST_F(BoundFunctionTest, I32SizeOverflowFailsWithoutCalling) {
  std::unique_ptr<BoundFunction> scale = Bind(kScale);
  ASSERT_NE(scale, nullptr);
  // Dims claim more elements than the data holds; the check fails before any
  // access, so the small buffers are never read past their end.
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1})},
                  {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Float64Attribute("factor", 2)});
  frame.operand(0).dims = {65536, 32768};
  int64_t before = Calls();
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, scale.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  ASSERT_EQ(frame.errors().size(), 2u);
  EXPECT_EQ(frame.errors()[1],
            "custom call 'mylib.scale': parameter 3 (\"size:operand:0:i32\"): operand 0 has "
            "2147483648 elements, more than an i32 size can hold (2147483647)");
  EXPECT_EQ(frame.errors()[0], frame.errors()[1]);
  EXPECT_EQ(Calls(), before);
  frame.operand(0).dims = {65536, 32767};
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get()), BERTH_Error_Code_OK);
}

TEST_F(BoundFunctionTest, ExecuteRejectsBufferWithoutData) {
  std::unique_ptr<BoundFunction> scale = Bind(kScale);
  ASSERT_NE(scale, nullptr);
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1})},
                  {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Float64Attribute("factor", 2)});
  // Prepare-stage views (data NULL) handed to the EXECUTE stage.
  BERTH_Ffi_Handler* as_execute = [](BERTH_Ffi_CallFrame* f) {
    f->stage = BERTH_Ffi_Stage_Execute;
    return BERTH_FfiBinding_Handler(f);
  };
  int64_t before = Calls();
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get(), as_execute),
            BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.scale': parameter 1 (\"operand:0:f64\"): operand 0 has no data at "
            "the EXECUTE stage");
  EXPECT_EQ(Calls(), before);
}

TEST_F(BoundFunctionTest, NegativeDimsAreRejected) {
  std::unique_ptr<BoundFunction> scale = Bind(kScale);
  ASSERT_NE(scale, nullptr);
  CallFrame frame({TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {1})},
                  {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Float64Attribute("factor", 2)});
  frame.operand(0).dims = {-1};
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, scale.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(frame.error(), HasSubstr("parameter 3 (\"size:operand:0:i32\"): operand 0 has "
                                       "negative, missing or overflowing dims"));
}

constexpr const char* kIota = R"({
  "target": "mylib.iota", "symbol": "iota_i64",
  "params": ["result:0:i64", "size:result:0:i32", "attr:start:i64", "const:i64:3"]})";

TEST_F(BoundFunctionTest, I64AttributeI32SizeAndConstReachTheFunction) {
  std::unique_ptr<BoundFunction> iota = Bind(kIota);
  ASSERT_NE(iota, nullptr);
  CallFrame frame({}, {TestBuffer::Of<int64_t>(BERTH_Buffer_Type_S64, {0, 0, 0, 0})},
                  {Int64Attribute("start", int64_t{1} << 40)});
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, iota.get()), BERTH_Error_Code_OK) << frame.error();
  int64_t start = int64_t{1} << 40;
  EXPECT_EQ(frame.result(0).Values<int64_t>(),
            (std::vector<int64_t>{start, start + 3, start + 6, start + 9}));
}

TEST_F(BoundFunctionTest, FloatAttributeForIntegerParamIsRejected) {
  std::unique_ptr<BoundFunction> iota = Bind(kIota);
  ASSERT_NE(iota, nullptr);
  CallFrame frame({}, {TestBuffer::Of<int64_t>(BERTH_Buffer_Type_S64, {0})},
                  {Float64Attribute("start", 1.5)});
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, iota.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.iota': parameter 3 (\"attr:start:i64\"): attribute 'start' is a "
            "float (1.500000), the binding declares i64");
}

TEST_F(BoundFunctionTest, StringAttributeIsRejected) {
  std::unique_ptr<BoundFunction> iota = Bind(kIota);
  ASSERT_NE(iota, nullptr);
  CallFrame frame({}, {TestBuffer::Of<int64_t>(BERTH_Buffer_Type_S64, {0})},
                  {StringAttribute("start", "7")});
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, iota.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(frame.error(), HasSubstr("attribute 'start' is a string, the binding declares i64"));
}

constexpr const char* kCombine = R"({
  "target": "mylib.combine", "symbol": "combine_scalars",
  "params": ["attr:a:i32", "attr:b:i64", "attr:c:f32", "attr:d:f64", "const:i32:5",
             "const:i64:6", "const:f32:7", "const:f64:8", "attr:i:i32", "size:result:0",
             "attr:k:f32", "const:f64:3", "const:f32:4.0", "attr:n:f64", "result:0:f64"]})";

TEST_F(BoundFunctionTest, ManyScalarsOfEveryTypeArriveInOrder) {
  std::unique_ptr<BoundFunction> combine = Bind(kCombine);
  ASSERT_NE(combine, nullptr);
  // Integer attributes convert to float params, bools to 0/1.
  CallFrame frame({}, {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Int64Attribute("a", 1), Int64Attribute("b", 2), Int64Attribute("c", 3),
                   Float64Attribute("d", 4), Int64Attribute("i", 9), Int64Attribute("k", 2),
                   BoolAttribute("n", true)});
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, combine.get()), BERTH_Error_Code_OK)
      << frame.error();
  // Digits from the last argument (n) to the first (a); j is the result's size, 1.
  EXPECT_EQ(frame.result(0).Values<double>()[0], 14321987654321.0);
}

TEST_F(BoundFunctionTest, I32AttributeOutOfRangeIsRejected) {
  std::unique_ptr<BoundFunction> combine = Bind(kCombine);
  ASSERT_NE(combine, nullptr);
  CallFrame frame({}, {TestBuffer::Of<double>(BERTH_Buffer_Type_F64, {0})},
                  {Int64Attribute("a", int64_t{1} << 31), Int64Attribute("b", 2),
                   Int64Attribute("c", 3), Float64Attribute("d", 4), Int64Attribute("i", 9),
                   Int64Attribute("k", 2), BoolAttribute("n", true)});
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, combine.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(),
            "custom call 'mylib.combine': parameter 1 (\"attr:a:i32\"): attribute 'a' is "
            "2147483648, out of range for i32");
}

TEST_F(BoundFunctionTest, SumsIntoOneElementResult) {
  std::unique_ptr<BoundFunction> sum = Bind(R"({"target": "t.sum", "symbol": "sum_i32",
      "params": ["operand:0:i32", "size:operand:0", "result:0:i32"]})");
  ASSERT_NE(sum, nullptr);
  CallFrame frame({TestBuffer::Of<int32_t>(BERTH_Buffer_Type_S32, {1, 2, 3, 4, 5, 6})},
                  {TestBuffer::Of<int32_t>(BERTH_Buffer_Type_S32, {0})});
  frame.operand(0).dims = {2, 3};
  frame.result(0).dims = {};
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, sum.get()), BERTH_Error_Code_OK) << frame.error();
  ASSERT_EQ(frame.Run(BERTH_Ffi_Stage_Execute, sum.get()), BERTH_Error_Code_OK) << frame.error();
  EXPECT_EQ(frame.result(0).Values<int32_t>(), (std::vector<int32_t>{21}));
}

TEST_F(BoundFunctionTest, UnknownStageIsRejected) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  CallFrame frame = AxpyFrame();
  EXPECT_EQ(frame.Run(7, axpy.get()), BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(frame.error(), "custom call 'mylib.axpy': unknown stage 7");
}

TEST_F(BoundFunctionTest, HandlerWithoutBoundFunctionIsInternal) {
  CallFrame frame = AxpyFrame();
  EXPECT_EQ(frame.Run(BERTH_Ffi_Stage_Prepare, nullptr), BERTH_Error_Code_INTERNAL);
  EXPECT_THAT(frame.error(), HasSubstr("handler_data is NULL"));
}

TEST_F(BoundFunctionTest, CreateRejectsNullSymbol) {
  Result<std::vector<FunctionSpec>> specs =
      ParseFfiFunctions(json::array({json::parse(kAxpy)}), kWhere);
  ASSERT_TRUE(specs.ok());
  Result<std::unique_ptr<BoundFunction>> bound =
      BoundFunction::Create(std::move((*specs)[0]), nullptr);
  EXPECT_EQ(bound.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bound.status().message(),
            "custom call 'mylib.axpy': symbol 'axpy_f32' has a NULL address");
}

TEST_F(BoundFunctionTest, ReleaseDataDeletesTheBoundFunction) {
  std::unique_ptr<BoundFunction> axpy = Bind(kAxpy);
  ASSERT_NE(axpy, nullptr);
  // Leak checkers (ASan) catch it when this does not free.
  BERTH_Ffi_ReleaseData* release = BERTH_FfiBinding_ReleaseData;
  release(axpy.release());
  release(nullptr);
}

}  // namespace
}  // namespace berth::ext::ffi
