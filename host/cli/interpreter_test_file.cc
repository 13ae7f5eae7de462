#include "cli/interpreter_test_file.hpp"

#include <sstream>

namespace berth::cli {

namespace {

// Lines of `text`, without their newlines.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// `text` with runs of spaces and tabs made one space and the ends trimmed.
std::string Canonical(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// The top-level elements of "[a, b, ...]": commas inside <>, [], () and
// quotes do not split.
Result<std::vector<std::string>> SplitList(std::string_view list) {
  std::string_view body = list;
  while (!body.empty() && body.front() == ' ') body.remove_prefix(1);
  while (!body.empty() && body.back() == ' ') body.remove_suffix(1);
  if (body.size() < 2 || body.front() != '[' || body.back() != ']') {
    return InvalidArgumentError(
        "--args must be an array, [dense<...> : tensor<...>, ...]; it is '" + std::string(list) +
        "'");
  }
  body = body.substr(1, body.size() - 2);
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    char c = i < body.size() ? body[i] : ',';
    if (c == '<' || c == '[' || c == '(') ++depth;
    if ((c == '>' && (i == 0 || body[i - 1] != '-')) || c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      std::string element(body.substr(start, i - start));
      if (element.find_first_not_of(' ') != std::string::npos) out.push_back(element);
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<HostArray>> RunLineArgs(std::string_view file_text) {
  for (std::string_view line : Lines(file_text)) {
    size_t run = line.find("RUN:");
    if (line.rfind("//", 0) != 0 || run == std::string_view::npos) continue;
    std::string_view command = line.substr(run + 4);
    if (Canonical(command).rfind("not ", 0) == 0) continue;  // a run expected to fail
    if (command.find("--interpret") == std::string_view::npos) continue;
    size_t args = command.find("--args=\"");
    if (args == std::string_view::npos) continue;
    size_t begin = args + 8;
    size_t end = command.find('"', begin);
    if (end == std::string_view::npos)
      return InvalidArgumentError("RUN line's --args is not closed");
    BERTH_ASSIGN_OR_RETURN(std::vector<std::string> elements,
                           SplitList(command.substr(begin, end - begin)));
    std::vector<HostArray> arrays;
    for (const std::string& element : elements) {
      Result<HostArray> array = ParseMlirLiteral(element);
      if (!array.ok()) {
        return InvalidArgumentError(
            "RUN line's --args element '" + element +
            "' is not a dense literal: " + std::string(array.status().message()));
      }
      arrays.push_back(std::move(array).value());
    }
    return arrays;
  }
  return std::vector<HostArray>{};
}

std::vector<CheckLine> CheckLines(std::string_view case_text, int first_line) {
  std::vector<CheckLine> checks;
  std::vector<std::string_view> lines = Lines(case_text);
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view line = lines[i];
    size_t comment = line.find("//");
    if (comment == std::string_view::npos) continue;
    std::string_view rest = line.substr(comment + 2);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    for (std::string_view prefix :
         {"CHECK:", "CHECK-NEXT:", "CHECK-NEXT{LITERAL}:", "CHECK{LITERAL}:"}) {
      if (rest.rfind(prefix, 0) != 0) continue;
      CheckLine check;
      check.next = prefix.find("NEXT") != std::string_view::npos;
      check.pattern = Canonical(rest.substr(prefix.size()));
      check.line = first_line + static_cast<int>(i);
      checks.push_back(std::move(check));
      break;
    }
  }
  return checks;
}

Status MatchCheckLines(const std::vector<CheckLine>& checks, std::string_view output) {
  std::vector<std::string> lines;
  for (std::string_view line : Lines(output)) lines.push_back(Canonical(line));
  size_t at = 0;         // the first line a CHECK may match
  bool matched = false;  // whether a line has matched (CHECK-NEXT needs one)
  for (const CheckLine& check : checks) {
    if (check.next) {
      if (!matched || at >= lines.size() || lines[at].find(check.pattern) == std::string::npos) {
        return FailedPreconditionError("check failed: CHECK-NEXT at line " +
                                       std::to_string(check.line) + " expected '" + check.pattern +
                                       "', the next line is '" +
                                       (matched && at < lines.size() ? lines[at] : "") + "'");
      }
      ++at;
      continue;
    }
    size_t found = at;
    while (found < lines.size() && lines[found].find(check.pattern) == std::string::npos) ++found;
    if (found == lines.size()) {
      return FailedPreconditionError("check failed: CHECK at line " + std::to_string(check.line) +
                                     " expected '" + check.pattern + "' in the printed results");
    }
    at = found + 1;
    matched = true;
  }
  return OkStatus();
}

}  // namespace berth::cli
