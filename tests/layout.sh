#!/bin/sh
# layout.sh -- the module map of doc/ARCHITECTURE.md, checked: every source
# file includes only its own module's headers and those of modules below it
# (util < formats, sim < data < count < stats < tile < gpu < backend < dist < scan <
# select < report < cli; regress: util and formats only, below data; rules: util,
# formats, data and its own GPU door gpu/rules/rules_gpu.h, below cli; mdfs: util, formats, data, count and stats, below cli; nsga:
# util, formats, data, select and its own GPU door gpu/nsga/nsga_gpu.h, below cli; mdfs
# also its GPU door gpu/mdfs/mdfs_gpu.h), a
# private *_internal.h only inside its module,
# the GPU door (gpu/gpu.h) only from the backend, and no C file but src/backend/registry.c
# mentions HAVE_CUDA.
. "$(dirname "$0")/lib.sh"
cd "$ES_SRCDIR" || fail "no source dir"
bad=$(
    {
        for f in src/*/*.c src/*/*.h formats/*.c formats/*.h gpu/*.c gpu/*.h gpu/*.cu \
            gpu/*/*.cu gpu/*/*.cuh; do
            [ -f "$f" ] || continue
            grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f"
        done
    } | awk '
    BEGIN {
        # rank of each module; a file may include headers of ranks <= its own
        n = split("util formats sim data count stats tile gpu backend dist scan select report cli", m, " ")
        for (k = 1; k <= n; k++) rank[m[k]] = k
        rank["sim"] = rank["formats"]
        # which module each header belongs to
        own["util.h"] = "util"; own["formats.h"] = "formats"; own["table.h"] = "formats"
        own["table_internal.h"] = "formats"; own["data.h"] = "data"; own["count.h"] = "count"; own["count_internal.h"] = "count"; own["count3_internal.h"] = "count"
        own["stats.h"] = "stats"; own["stats_internal.h"] = "stats"; own["tile.h"] = "tile"
        own["backend.h"] = "backend"; own["scan.h"] = "scan"; own["output.h"] = "scan"
        own["dist.h"] = "dist"; own["dist_internal.h"] = "dist"
        own["select.h"] = "select"; own["select_internal.h"] = "select"; own["sim.h"] = "sim"
        own["report.h"] = "report"; own["report_internal.h"] = "report"
        own["cli.h"] = "cli"; own["gpu.h"] = "gpu"; own["cuda_check.h"] = "gpu"
        own["rules.h"] = "rules"; own["rules_internal.h"] = "rules"; own["rules_gpu.h"] = "gpu"
        rank["rules"] = rank["select"]
        own["nsga.h"] = "nsga"; own["nsga_internal.h"] = "nsga"; own["nsga_gpu.h"] = "gpu"
        rank["nsga"] = rank["select"]
        own["mdfs.h"] = "mdfs"; own["mdfs_internal.h"] = "mdfs"; own["mdfs_gpu.h"] = "gpu"
        rank["mdfs"] = rank["select"]
        own["regress.h"] = "regress"; own["regress_internal.h"] = "regress"
        rank["regress"] = rank["formats"]
    }
    {
        file = $0; sub(/:.*/, "", file)
        hdr = $0; sub(/^[^"]*"/, "", hdr); sub(/".*/, "", hdr)
        if (hdr == "epistream.h" || hdr == "config.h") next
        split(file, p, "/")
        mod = (p[1] == "src") ? p[2] : p[1]
        if (p[1] == "gpu") mod = "gpu"
        if (mod == "gpu") {
            # CUDA code: its own headers (gpu/*.h, gpu/*/*.cuh) and the public one
            if (hdr ~ /\.cuh$/ || own[hdr] == "gpu" || hdr == "gpu_test.h") next
            print file ": GPU code includes " hdr; next
        }
        if (hdr == "gpu_test.h") { print file ": test hooks (gpu_test.h) outside gpu/ and tests/"; next }
        if (!(hdr in own)) { print file ": includes unknown header " hdr " (add it to tests/layout.sh and doc/ARCHITECTURE.md)"; next }
        hm = own[hdr]
        if (hdr ~ /_internal\.h$/ && hm != mod) { print file ": private header " hdr " of " hm; next }
        if (hdr == "gpu.h" && mod != "backend") { print file ": gpu.h outside src/backend (use the backend table)"; next }
        # NSGA-II: util, formats, data, select and its own GPU door (doc/ARCHITECTURE.md)
        if (mod == "nsga" && hm != "util" && hm != "formats" && hm != "data" && hm != "select" && hm != "nsga" &&
            hdr != "nsga_gpu.h") {
            print file ": the nsga module includes " hdr " of " hm " (util, formats, data, select, nsga_gpu.h)"; next
        }
        if (hdr == "nsga_gpu.h" && mod != "nsga" && mod != "gpu") { print file ": nsga_gpu.h outside src/nsga"; next }
        # the regressions use util and formats only, so every module from data up may use them
        if (mod == "regress" && hm != "util" && hm != "formats" && hm != "regress") {
            print file ": the regress module includes " hdr " of " hm " (util and formats only)"; next
        }
        # the rule learner uses util, formats, the dataset and its own GPU door only (doc/ARCHITECTURE.md)
        if (mod == "rules" && hm != "util" && hm != "formats" && hm != "data" && hm != "rules" && hdr != "rules_gpu.h") {
            print file ": the rules module includes " hdr " of " hm " (util, formats, data, rules_gpu.h)"; next
        }
        if (hdr == "rules_gpu.h" && mod != "rules" && mod != "gpu") { print file ": rules_gpu.h outside src/rules"; next }
        # the MDFS engine: util, formats, data, count and stats only
        if (mod == "mdfs" && hm != "util" && hm != "formats" && hm != "data" && hm != "count" &&
            hm != "stats" && hm != "mdfs" && hdr != "mdfs_gpu.h") {
            print file ": the mdfs module includes " hdr " of " hm " (util, formats, data, count, stats, mdfs_gpu.h only)"; next
        }
        if (hdr == "mdfs_gpu.h" && mod != "mdfs" && mod != "gpu") { print file ": mdfs_gpu.h outside src/mdfs"; next }
        if (rank[hm] > rank[mod]) print file " (" mod ") includes " hdr " of " hm ", a module above it"
    }'
    for f in $(grep -l 'HAVE_CUDA' src/*/*.c src/*/*.h formats/*.c formats/*.h gpu/*.c gpu/*.h 2>/dev/null); do
        [ "$f" = src/backend/registry.c ] || echo "$f: mentions HAVE_CUDA (only src/backend/registry.c may)"
    done
)
[ -z "$bad" ] || { echo "$bad" >&2; fail "module dependencies"; }
exit 0
