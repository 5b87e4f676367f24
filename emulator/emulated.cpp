// A single-block chapter's kernel on the CPU emulator (emulate_accesses(), block_events.hpp), and
// the analysis the program prints from that run (analyse(), analysis.hpp), so that all the program
// says of the kernel comes from its own source. Compiled once per chapter: REDUCTION_KERNEL_HEADER
// names the chapter's kernel header (solution/, or in exercise mode the student's) and
// REDUCTION_KERNEL its kernel template.
#include <utility>

#include "emulator/analysis.hpp"
#include "emulator/block_events.hpp"
#include "emulator/block_model.hpp"
#include "emulator/block_trace.hpp"

namespace reduction::single_block {

template <typename T>
std::size_t analyse(Report& report, const std::vector<T>& row0, std::size_t rows, const KernelNotes& notes,
                    bool trace, const std::function<std::vector<Access>()>& record_on_gpu) {
  const std::size_t n = row0.size();
  const unsigned threads = threads_for(n);
  const char* type = type_name(data_type_of<T>());
  std::string findings;
  const std::vector<Access> emulated = emulator::emulate_accesses(row0, &findings);
  print_launch(report.text(), threads, rows);
  if (notes.activity_predicate) report.text() << "\n";
  if (!findings.empty()) {
    report.fields().set("launch", launch_json(threads, rows));
    show_emulator_findings(report, findings, trace);
    return tree_depth(n);
  }
  const BlockCounts counts = count(steps_of(emulated), threads, sizeof(T));
  const ClosedForm text_form = notes.closed_form ? notes.closed_form(n) : ClosedForm{};
  if (notes.activity_predicate) print_execution_model(report.text(), counts, notes.activity_predicate, text_form, type);
  report.text() << "\n";
  if (notes.before_memory) notes.before_memory(report.text());
  print_memory(report.text(), counts, type);
  if (notes.after_memory) notes.after_memory(report.text(), tree_steps(counts));
  if (notes.activity_predicate) {
    report.fields().set("efficiency", efficiency_json(counts));
    report.fields().set("text_closed_form", closed_form_json(text_form));
  }
  report.fields().set("launch", launch_json(threads, rows));
  report.fields().set("memory", memory_json(counts));
  report.fields().set("steps", steps_json(counts));
  // --trace: the steps recorded on the GPU (traced.cuh); without a GPU, the emulated run.
  if (trace) {
    const auto accesses = record_on_gpu ? record_on_gpu() : emulated;
    const auto drawn = trace_from(steps_of(accesses), row0, threads, notes.layout, bool(record_on_gpu));
    report.text() << "\n";
    print_trace(report.text(), drawn);
    report.fields().set("trace", trace_json(drawn));
  }
  return tree_steps(counts);
}

template std::size_t analyse(Report&, const std::vector<std::int32_t>&, std::size_t, const KernelNotes&, bool,
                             const std::function<std::vector<Access>()>&);
template std::size_t analyse(Report&, const std::vector<float>&, std::size_t, const KernelNotes&, bool,
                             const std::function<std::vector<Access>()>&);
template std::size_t analyse(Report&, const std::vector<double>&, std::size_t, const KernelNotes&, bool,
                             const std::function<std::vector<Access>()>&);

}  // namespace reduction::single_block

#include "emulator/emulator.hpp"  // last before the kernel: it ends with the CUDA shim
#include REDUCTION_KERNEL_HEADER

namespace reduction::emulator {

template <typename T>
std::vector<single_block::Access> emulate_accesses(const std::vector<T>& row, std::string* findings) {
  auto run = record_accesses(&REDUCTION_KERNEL<Checked<T>>, row, single_block::threads_for(row.size()));
  if (findings) *findings = findings_text(run.findings);
  return std::move(run.accesses);
}

template std::vector<single_block::Access> emulate_accesses(const std::vector<std::int32_t>&, std::string*);
template std::vector<single_block::Access> emulate_accesses(const std::vector<float>&, std::string*);
template std::vector<single_block::Access> emulate_accesses(const std::vector<double>&, std::string*);

}  // namespace reduction::emulator
