#!/usr/bin/env bash
# Writes the replay fidelity table (markdown) for every shared trace and
# what-if pair to bench/fidelity/fidelity.md. Run from anywhere; needs the
# shared traces at ../shared/traces relative to the repository root.
set -euo pipefail
cd "$(dirname "$0")/../.."
go run ./bench/fidelity/run -dir ../shared/traces | tee bench/fidelity/fidelity.md
