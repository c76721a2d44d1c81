// Benjamini-Hochberg adjusted p-values (q-values) for the throughput rows of
// one gate report. Why: a suite has dozens of rows, each tested at alpha;
// uncorrected, an A/A of the 73-row smoke suite flagged rows in 4 of 5
// comparisons. With every row unchanged (an A/A), rejecting q < alpha keeps
// the chance of any false regression at alpha (the rows are positively
// dependent through shared run offsets, where BH stays valid); a real
// slowdown that moves many rows still passes, since the k-th smallest p is
// held to k * alpha / m, not alpha / m.
#pragma once

#include <vector>

namespace ampbench::gate {

// q_i = min over j with p_(j) >= p_i of m * p_(j) / rank(j), capped at 1
// (what statsmodels' multipletests(method="fdr_bh") returns), in input order.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

}  // namespace ampbench::gate
