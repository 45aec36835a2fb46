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
rm -rf "$tmp"
t_done
