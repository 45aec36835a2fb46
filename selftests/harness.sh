#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host: the tests' exit statuses are kselftest's (1 after a failure, 4 when
# everything skipped, else 0) for the Python tests (tdtest.Tap) and the
# shell tests (lib.sh), and guest-tests.sh adds a failure for a test that
# died (any other status, no "not ok" of its own) and none for one that
# failed or skipped in the usual way.
set -u
cd "$(dirname "$0")/.."
TD_PREFIX=harness
source selftests/lib.sh

tmp=build/harness
rm -rf "$tmp"
mkdir -p "$tmp"

# status_of WANT name cmd...: cmd's exit status must be WANT
status_of() {
	local want=$1 name=$2 rc
	shift 2
	"$@" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		t_ok "$name: exit $rc"
	else
		t_fail "$name: exit $rc, want $want ($(head -c 200 "$tmp/out"))"
	fi
}

py() {	# a Tap-based test: its Python body
	/usr/bin/python3 -c "import sys; sys.path.insert(0, 'selftests')
from tdtest import Tap
tap = Tap('t')
$1"
}

status_of 0 "python: all passed" py "tap(True, 'a'); tap.summary()"
status_of 1 "python: one failed" py "tap(True, 'a'); tap(False, 'b'); tap.summary()"
status_of 4 "python: skipped everything" py "tap.skip_all('nothing here')"
status_of 4 "python: ran nothing" py "tap.summary()"

sh_test() {	# a lib.sh-based test: its body
	bash -c "TD_PREFIX=t; source selftests/lib.sh; $1"
}

status_of 0 "shell: all passed" sh_test "t_ok a; t_skip b why; t_done"
status_of 1 "shell: one failed" sh_test "t_ok a; t_fail b; t_done"
status_of 4 "shell: skipped everything" sh_test "t_skip a why; t_done"

# several programs' statuses together (unit/run.sh)
status_of 0 "merge: passed and skipped" t_merge 0 4 0
status_of 1 "merge: one failed" t_merge 0 1 4
status_of 1 "merge: one died" t_merge 4 139 0
status_of 4 "merge: all skipped" t_merge 4 4
# one test of two conditions (check runs one command)
status_of 1 "check_rc: a false condition fails" sh_test "[ 1 = 1 ] && [ 1 = 2 ]; check_rc two \$?; t_done"
# netlink/run.sh outside the VM skips, as kselftest's tests do
status_of 4 "netlink/run.sh outside the VM" env -u TD_KO_DIR bash selftests/netlink/run.sh

# guest-tests.sh's accounting, with stand-in tests
printf '#!/bin/sh\necho "ok 1 - fake: fine"\nexit 0\n' > "$tmp/pass.sh"
printf '#!/bin/sh\necho "not ok 1 - fake: broke"\nexit 1\n' > "$tmp/fail.sh"
printf '#!/bin/sh\necho "1..0 # SKIP fake"\nexit 4\n' > "$tmp/skip.sh"
printf '#!/bin/sh\necho "ok 1 - fake: half"\nexit 3\n' > "$tmp/die.sh"
chmod +x "$tmp"/*.sh
out=$(TD_KO_DIR=/nonexistent TD_GUEST_TESTS="$tmp/pass.sh $tmp/fail.sh $tmp/skip.sh $tmp/die.sh" \
	selftests/guest-tests.sh 2>&1)
fails=$(grep -c '^not ok ' <<< "$out")
if [ "$fails" -eq 2 ] && grep -q "^not ok 1 - $tmp/die.sh exited with status 3" <<< "$out" &&
   grep -q '^not ok 1 - fake: broke' <<< "$out"; then
	t_ok "guest-tests.sh: one failure for the failed test, one for the dead one, none for the skip"
else
	t_fail "guest-tests.sh: $fails failures, want 2 ($(grep '^not ok' <<< "$out" | tr '\n' ';'))"
fi

# the kernel's runner (run_kselftest.sh from linux-source-6.12) on a fake
# collection, its output through t_flatten as make check counts it
if [ -e build/linux-source-6.12/tools/testing/selftests/run_kselftest.sh ]; then
	k=$tmp/ksft
	mkdir -p "$k/fake"
	ln -s "$PWD/build/linux-source-6.12/tools/testing/selftests/kselftest" "$k/kselftest"
	ln -s "$PWD/build/linux-source-6.12/tools/testing/selftests/run_kselftest.sh" "$k/run_kselftest.sh"
	cp "$tmp"/{pass,fail,skip,die}.sh "$k/fake/"
	printf '#!/bin/sh\necho "ok 1 - fake: begun"\nsleep 30\n' > "$k/fake/slow.sh"
	printf '#!/bin/sh\necho "ok 1 - fake: a"\necho "ok 2 - fake: b # SKIP why"\nexit 0\n' > "$k/fake/mixed.sh"
	chmod +x "$k"/fake/*.sh
	echo "timeout=2" > "$k/fake/settings"
	printf 'fake:%s\n' pass.sh fail.sh skip.sh die.sh slow.sh mixed.sh > "$k/kselftest-list.txt"
	out=$("$k/run_kselftest.sh" 2>&1 | t_flatten)
	printf '%s\n' "$out" > "$tmp/flat"
	ok=$(grep -cE '^ok [0-9]+ ' <<< "$out")
	skip=$(grep -cE '^ok [0-9]+ .*# SKIP' <<< "$out")
	bad=$(grep -cE '^not ok [0-9]+ ' <<< "$out")
	# pass 1, fail 1 bad, skip 1 skip, die 1 ok + 1 bad, slow 1 ok + 1 bad (timeout), mixed 2 (1 skip)
	if [ "$ok" -eq 6 ] && [ "$skip" -eq 2 ] && [ "$bad" -eq 3 ] &&
	   grep -q '^not ok 1 - fake: die.sh: exit=3 with no failed check' <<< "$out" &&
	   grep -q '^not ok 1 - fake: slow.sh: TIMEOUT 2 seconds' <<< "$out" &&
	   grep -q '^ok 1 - fake: skip.sh # SKIP' <<< "$out"; then
		t_ok "kselftest runner + t_flatten: 6 ok (2 skips), 3 failures: the failed test's own, the dead one's, the timed out one's"
	else
		t_fail "kselftest runner + t_flatten: $ok ok ($skip skips), $bad failures, want 6 (2), 3 ($(grep -E '^(not )?ok' <<< "$out" | tr '\n' ';'))"
	fi
else
	t_fail "kselftest runner: build/linux-source-6.12 has no run_kselftest.sh (make lsrc)"
fi
rm -rf "$tmp"
t_done
