#include <loopsim/bench/paper_report.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace loopsim {

namespace {

// The abscissae of `cells`, increasing.
std::vector<double> abscissae(const std::vector<PaperCell>& cells) {
  std::vector<double> xs;
  for (const PaperCell& c : cells) xs.push_back(c.x);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

const PaperCell* find(const PaperExperiment& e, const std::string& case_name, double x, const std::string& column) {
  for (const PaperCell& c : e.cells) {
    if (c.case_name == case_name && c.x == x && c.column == column) return &c;
  }
  return nullptr;
}

std::string number(double v) {
  if (v == 0.0) return "0";
  const double a = std::fabs(v);
  if (a >= 1e4 || a < 1e-2) return fmt::format("{:.2g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

// An abscissa: sizes as integers, μ and the like in scientific notation.
std::string abscissa(double x) {
  if (x == std::round(x) && std::fabs(x) < 1e6) return fmt::format("{:.0f}", x);
  return fmt::format("{:.0e}", x);
}

std::string iterationsText(double v) {
  return v == std::round(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v);
}

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string tableRow(const std::vector<std::string>& cells) {
  std::string out = "|";
  for (const auto& c : cells) out += " " + c + " |";
  return out + "\n";
}

std::string headerRows(const std::vector<std::string>& names) {
  std::string out = tableRow(names) + "|";
  for (std::size_t i = 0; i < names.size(); ++i) out += i == 0 ? "---|" : "--:|";
  return out + "\n";
}

// A table's cell: our ratio, iterations, the paper's figure.
std::string tableCell(const PaperCell* c) {
  if (c == nullptr) return "–";
  std::string s = c->ratio > 0.0 ? number(c->ratio) : "–";
  if (c->iterations > 0.0) s += fmt::format(" · {} it", iterationsText(c->iterations));
  if (c->paper > 0.0) s += fmt::format(" (paper {})", number(c->paper));
  return s;
}

std::string tableSection(const PaperExperiment& e) {
  const auto cases = orderedCases(e.cells);
  const auto columns = orderedColumns(e, e.cells);
  std::vector<std::string> header = {"case (nv, rows)"};
  header.insert(header.end(), columns.begin(), columns.end());
  std::string out = headerRows(header);
  for (const std::string& name : cases) {
    const PaperCell* any = find(e, name, 0.0, columns.front());
    for (const auto& column : columns) {
      if (any == nullptr) any = find(e, name, 0.0, column);
    }
    std::vector<std::string> row = {any != nullptr ? fmt::format("{} ({}, {})", name, any->nv, any->constraint_dim)
                                                   : name};
    for (const auto& column : columns) row.push_back(tableCell(find(e, name, 0.0, column)));
    out += tableRow(row);
  }
  return out;
}

std::string scalingSection(const PaperExperiment& e) {
  std::string out;
  const auto families = orderedCases(e.cells);
  for (const std::string& family : families) {
    std::vector<PaperCell> mine;
    for (const PaperCell& c : e.cells) {
      if (c.case_name == family) mine.push_back(c);
    }
    const auto columns = orderedColumns(e, mine);
    const auto xs = abscissae(mine);
    out += fmt::format("\n**{}** (µs, and the ratio to {} in parentheses)\n\n", family, e.reference_column);
    std::vector<std::string> header = {e.x_label + " (nv, rows)"};
    header.insert(header.end(), columns.begin(), columns.end());
    out += headerRows(header);
    for (double x : xs) {
      const PaperCell* first = nullptr;
      for (const auto& column : columns) {
        if (first == nullptr) first = find(e, family, x, column);
      }
      std::vector<std::string> row = {first != nullptr ? fmt::format("{} ({}, {})", abscissa(x), first->nv,
                                                                     first->constraint_dim)
                                                       : abscissa(x)};
      for (const auto& column : columns) {
        const PaperCell* c = find(e, family, x, column);
        row.push_back(c == nullptr ? "–" : fmt::format("{} ({})", number(c->median_us), number(c->ratio)));
      }
      out += tableRow(row);
    }
  }
  if (!e.fits.empty()) {
    out += "\nGrowth exponents (time ~ x^p, least squares over the largest sizes):\n\n";
    out += headerRows({"family", "column", "p ours", "over x", "p paper", "the paper's basis"});
    for (const PaperFit& f : e.fits) {
      out += tableRow({f.family, f.column, fmt::format("{:.2f}", f.exponent),
                       fmt::format("{}-{}", abscissa(f.from_x), abscissa(f.to_x)),
                       f.paper > 0.0 ? fmt::format("{:.1f}", f.paper) : "–", f.paper_basis.empty() ? "–" : f.paper_basis});
    }
  }
  return out;
}

std::string muSweepSection(const PaperExperiment& e) {
  std::string out;
  const auto cases = orderedCases(e.cells);
  for (const std::string& name : cases) {
    std::vector<PaperCell> mine;
    for (const PaperCell& c : e.cells) {
      if (c.case_name == name) mine.push_back(c);
    }
    const auto columns = orderedColumns(e, mine);
    const auto xs = abscissae(mine);
    out += fmt::format("\n**{}** (median iterations · median relative error of v̇)\n\n", name);
    std::vector<std::string> header = {"μ"};
    header.insert(header.end(), columns.begin(), columns.end());
    out += headerRows(header);
    for (double x : xs) {
      std::vector<std::string> row = {fmt::format("{:.0e}", x)};
      for (const auto& column : columns) {
        const PaperCell* c = find(e, name, x, column);
        row.push_back(c == nullptr ? "–" : fmt::format("{} · {:.1e}", iterationsText(c->iterations), c->error));
      }
      out += tableRow(row);
    }
  }
  return out;
}

}  // namespace

std::string paperExperimentCsv(const PaperExperiment& e) {
  std::string out =
      "paper,experiment,case,column,x,nv,constraint_dim,median_us,ratio,ratio_iqr,reference,iterations,error,exact,"
      "paper_figure\n";
  for (const PaperCell& c : e.cells) {
    out += fmt::format("{},{},{},{},{:.6g},{},{},{:.6g},{:.6g},{:.3g},{},{:.6g},{:.3g},{},{:.6g}\n", e.paper, e.id,
                       csvField(c.case_name), csvField(c.column), c.x, c.nv, c.constraint_dim, c.median_us, c.ratio,
                       c.ratio_spread, e.reference_column, c.iterations, c.error, c.exact ? 1 : 0, c.paper);
  }
  for (const PaperFit& f : e.fits) {
    out += fmt::format("# fit,{},{},{:.4f},{:.6g},{:.6g},{:.2f},{}\n", csvField(f.family), csvField(f.column),
                       f.exponent, f.from_x, f.to_x, f.paper, csvField(f.paper_basis));
  }
  return out;
}

double worstExactError(const PaperExperiment& e) {
  double worst = -1.0;
  for (const PaperCell& c : e.cells) {
    if (c.exact && c.error >= 0.0) worst = std::max(worst, c.error);
  }
  return worst;
}

std::string paperPageMarkdown(const std::string& paper, const std::vector<PaperExperiment>& experiments,
                              const PaperPageInfo& info) {
  std::string out = fmt::format("# Paper {} reproduced\n\n", paper);
  out += fmt::format("Measured on {}, {}{}. Regenerate with `{}`.\n\n", info.machine, info.date,
                     info.quick ? " (quick run: few states and sizes, for checks, not for reading)" : "",
                     info.command);
  out += "Ratios are within one robot or mechanism (the unit that survives a change of machine), each the median "
         "of per-round ratios of columns timed in interleaved rounds on one core; the paper's figures are "
         "converted to the same unit. Iterative solvers' columns give their mean iterations (`it`).\n";
  for (const PaperExperiment& e : experiments) {
    out += fmt::format("\n## {}\n\n", e.title);
    out += fmt::format("Unit: {}.", e.unit);
    if (info.csv_name != nullptr) out += fmt::format(" Data: [{0}]({0}).", info.csv_name(e));
    out += "\n";
    if (!e.differences.empty()) {
      out += "\nWhere ours differs from the paper's:\n\n";
      for (const auto& d : e.differences) out += "- " + d + "\n";
    }
    if (info.plot_name != nullptr) out += fmt::format("\n![{}]({})\n", e.title, info.plot_name(e));
    out += "\n";
    switch (e.kind) {
      case PaperExperiment::Kind::Table: out += tableSection(e); break;
      case PaperExperiment::Kind::Scaling: out += scalingSection(e); break;
      case PaperExperiment::Kind::MuSweep: out += muSweepSection(e); break;
    }
    const double worst = worstExactError(e);
    if (worst >= 0.0) {
      out += fmt::format("\nThe exact columns agree with the reference solve to {:.1e} (largest relative deviation "
                         "over all cases and states).\n", worst);
    }
  }
  return out;
}

}  // namespace loopsim
