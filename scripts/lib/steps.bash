# Timed steps for scripts/test, sourced by it.
#
#   step NAME CMD...      runs CMD in the foreground and records its wall time, saying every
#                         $STEPS_TICK_S seconds (default 30) that it still runs
#   step_bg NAME CMD...   starts CMD in the background, its output kept in a log
#   steps_wait            waits for every background step, prints each one's log, and fails if
#                         any of them failed
#   steps_cpu             sets STEPS_CPU to the CPU time (user and system, in whole seconds) of
#                         every process the script started and waited for so far
#
# When the script exits, for whatever reason, a table of every step with its wall time and the
# disk space left after it (on the target dir's file system, and on the temp dir's when that is
# another) is printed and written to $STEPS_TABLE. A run that succeeded but took longer than
# CI_BUDGET_S seconds (default 2400: 40 minutes, well inside CI's hard limit of 90) fails, naming
# the slowest steps, so that a slow creep shows long before the limit is reached.

CI_BUDGET_S="${CI_BUDGET_S:-2400}"
# How often a foreground step that is still running says so.
STEPS_TICK_S="${STEPS_TICK_S:-30}"
STEPS_TABLE="${STEPS_TABLE:-${CARGO_TARGET_DIR:-target}/ci-steps.txt}"
steps_logs="$(mktemp -d)"
steps_started=$SECONDS
steps_names=()
steps_secs=()
steps_marks=()
steps_free=()
steps_bg_pids=()
steps_bg_names=()

# Free space, in GiB, of the file systems that builds and tests write to: "12.3" when the target
# dir and the temp dir share one, "12.3 / 4.5" (target / temp) when they do not.
steps_disk_free() {
    local target="${CARGO_TARGET_DIR:-target}" tmp="${TMPDIR:-/tmp}"
    mkdir -p "$target"
    df -Pk "$target" "$tmp" | awk '
        NR == 2 { mount = $6; free = sprintf("%.1f", $4 / 1048576) }
        NR == 3 && $6 != mount { free = free sprintf(" / %.1f", $4 / 1048576) }
        END { print free }'
}
steps_free_at_start="$(steps_disk_free 2>/dev/null || echo "?")"

steps_record() {
    steps_names+=("$1")
    steps_secs+=("$2")
    steps_marks+=("$3")
    steps_free+=("$(steps_disk_free 2>/dev/null || echo "?")")
}

step() {
    local name=$1 started=$SECONDS status=0 ticker
    shift
    echo "== step: $name"
    # Steps that print nothing for a while (doc, api-snapshot) still show that they run: a shell
    # of its own says so until its input closes. Closed, not killed: a signal could reach it
    # before it starts, while it still carries this script's EXIT trap (which prints the table).
    exec {ticker}> >(exec bash -c 'waited=0
        while :; do
            read -r -t "$1" _
            [ $? -gt 128 ] || exit 0
            waited=$((waited + $1))
            echo "== step: $2, still running after $waited s"
        done' ticker "$STEPS_TICK_S" "$name")
    "$@" {ticker}>&- || status=$?
    exec {ticker}>&-
    if [ "$status" -ne 0 ]; then
        steps_record "$name" $((SECONDS - started)) "FAILED (exit $status)"
        echo "step '$name' failed (exit $status)" >&2
        exit "$status"
    fi
    steps_record "$name" $((SECONDS - started)) ""
}

step_bg() {
    local name=$1 log
    shift
    log="$steps_logs/${#steps_bg_names[@]}.log"
    echo "== step (in the background): $name"
    (
        trap - EXIT # stopped early, it must not print the run's table too
        started=$SECONDS
        status=0
        "$@" >"$log" 2>&1 </dev/null || status=$?
        echo "$((SECONDS - started)) $status" >"$log.done"
        exit "$status"
    ) &
    steps_bg_pids+=($!)
    steps_bg_names+=("$name")
}

steps_wait() {
    local i status failed=0 secs code
    for i in "${!steps_bg_pids[@]}"; do
        status=0
        wait "${steps_bg_pids[$i]}" || status=$?
        read -r secs code <"$steps_logs/$i.log.done" 2>/dev/null || { secs=$((SECONDS - steps_started)); code=$status; }
        echo "== output of the background step: ${steps_bg_names[$i]}"
        cat "$steps_logs/$i.log"
        if [ "$status" -ne 0 ]; then
            steps_record "${steps_bg_names[$i]}" "$secs" "FAILED (exit $status), in the background"
            echo "step '${steps_bg_names[$i]}' failed (exit $status)" >&2
            failed=1
        else
            steps_record "${steps_bg_names[$i]}" "$secs" "in the background"
        fi
    done
    steps_bg_pids=()
    steps_bg_names=()
    [ "$failed" -eq 0 ] || exit 1
}

# Run in this shell, not a subshell: a subshell's `times` counts only its own children.
steps_cpu() {
    times >"$steps_logs/times"
    STEPS_CPU="$(awk 'NR == 2 {
        for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); cpu += t[1] * 60 + t[2] }
        printf "%d\n", cpu + 0.5
    }' "$steps_logs/times")"
}

steps_table() {
    local i total=$((SECONDS - steps_started))
    printf '%-58s %7s  %-13s %s\n' "step" "seconds" "GiB free" ""
    printf '%-58s %7s  %-13s\n' "(at the start)" "" "$steps_free_at_start"
    for i in "${!steps_names[@]}"; do
        printf '%-58s %7s  %-13s %s\n' "${steps_names[$i]}" "${steps_secs[$i]}" \
            "${steps_free[$i]}" "${steps_marks[$i]}"
    done
    printf '%-58s %7s\n' "whole run (wall time)" "$total"
    printf '%-58s %7s\n' "whole run (CPU time: user and system)" "$STEPS_CPU"
}

steps_slowest() {
    local i
    for i in "${!steps_names[@]}"; do
        printf '%s\t%s\n' "${steps_secs[$i]}" "${steps_names[$i]}"
    done | sort -rn | head -n "${1:-3}" | awk -F'\t' '{ printf "%s (%s s)\n", $2, $1 }'
}

steps_finish() {
    local status=$? total=$((SECONDS - steps_started))
    # Background steps still running when the script stops early are stopped with it.
    for pid in "${steps_bg_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    echo
    steps_cpu
    echo "== steps and their wall times"
    mkdir -p "$(dirname "$STEPS_TABLE")"
    steps_table | tee "$STEPS_TABLE"
    rm -rf "$steps_logs"
    if [ "$status" -eq 0 ] && [ "$total" -gt "$CI_BUDGET_S" ]; then
        echo "error: the whole run took ${total} s, over its budget of ${CI_BUDGET_S} s" \
            "(CI_BUDGET_S). The slowest steps:" >&2
        steps_slowest 3 | sed 's/^/  /' >&2
        echo "Make them faster or fold them into an existing build before raising the budget." >&2
        exit 1
    fi
    exit "$status"
}
trap steps_finish EXIT
