#!/bin/bash
# The shipped provisioning examples: data/provision/aws-ec2.sh against a fake `aws` command
# (the calls it makes and the JSON its setup prints), and the static checks that can run
# here — bash -n, shellcheck, terraform fmt. terraform validate needs the hashicorp/aws
# provider from the Terraform registry, which this machine cannot reach: it SKIPs.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$HERE/../..
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
SCRIPTS="$ROOT/data/provision/aws-ec2.sh $ROOT/data/provision/terraform/terraform.sh $ROOT/tests/lib/fake_provision.sh"
for s in $SCRIPTS; do check "bash -n $(basename "$s")" bash -n "$s"; done
if command -v shellcheck >/dev/null; then
	# shellcheck disable=SC2086
	check "shellcheck of the hook scripts" shellcheck $SCRIPTS
else
	skip "shellcheck of the hook scripts" "shellcheck is not installed"
fi
if command -v terraform >/dev/null; then
	tf_fmt() { terraform fmt -check "$ROOT/data/provision/terraform" 2>/dev/null; }
	check "terraform fmt -check" tf_fmt
else
	skip "terraform fmt -check" "terraform is not installed"
fi
skip "terraform validate" "needs the hashicorp/aws provider from registry.terraform.io, not reachable here"

# A fake AWS CLI: answers what aws-ec2.sh asks, logs every call.
mkdir "$T/bin"
cat >"$T/bin/aws" <<'A'
#!/bin/bash
echo "$*" >>"$FAKE_AWS_LOG"
case "$*" in
*describe-instance-types*) echo x86_64 ;;
*"ssm get-parameters"*) echo ami-0debian12 ;;
*run-instances*) printf 'i-0aaa\ti-0bbb\n' ;;
*describe-instances*PrivateIpAddress*) printf '10.0.0.11\t10.0.0.12\n' ;;
*describe-instances*AvailabilityZone*) echo us-east-1b ;;
*describe-instances*tag:netsweep-hook*) printf 'i-0aaa\ti-0bbb\n' ;;
esac
exit 0
A
chmod +x "$T/bin/aws"
export FAKE_AWS_LOG=$T/aws.log PATH=$T/bin:$PATH
export NETSWEEP_PAIR=c5n NETSWEEP_INSTANCE_TYPE=c5n.18xlarge NETSWEEP_REGION=us-east-1
export NETSWEEP_RUN_UUID=abc NETSWEEP_DEB_URL=https://example.invalid/netsweep.deb
echo "campaign-key" >"$T/psk"
export NETSWEEP_PSK_FILE=$T/psk
out=$(bash "$ROOT/data/provision/aws-ec2.sh" setup 2>"$T/err")
rc=$?
j() { sqlite3 :memory: "select json_extract('$out', '$1')"; }
if [ "$rc" = 0 ] && [ "$(sqlite3 :memory: "select json_valid('$out')")" = 1 ] &&
	[ "$(j '$.agent')" = 10.0.0.12:5301 ] && [ "$(j '$.client')" = 10.0.0.11:5301 ] &&
	[ "$(j '$.instance_ids[1]')" = i-0bbb ] && [ "$(j '$.placement_group')" = netsweep-abc-c5n ]; then
	pass "aws-ec2.sh setup prints the agent, client and what to record"
else
	fail "aws-ec2.sh setup prints the agent, client and what to record" "exit $rc: $out $(cat "$T/err")"
fi
if grep -q "create-placement-group --group-name netsweep-abc-c5n --strategy cluster" "$FAKE_AWS_LOG" &&
	grep -q "run-instances --count 2 --instance-type c5n.18xlarge --image-id ami-0debian12 --placement GroupName=netsweep-abc-c5n" "$FAKE_AWS_LOG" &&
	grep -q "ssm get-parameters --names /aws/service/debian/release/12/latest/amd64" "$FAKE_AWS_LOG" &&
	grep -q "https://example.invalid/netsweep.deb" "$FAKE_AWS_LOG" &&
	grep -q "$(base64 -w0 <"$T/psk")" "$FAKE_AWS_LOG" && grep -q "systemctl enable --now netsweep-agent" "$FAKE_AWS_LOG"; then
	pass "aws-ec2.sh setup: cluster group, two instances from Debian 12, user-data with package and key"
else
	fail "aws-ec2.sh setup: cluster group, two instances from Debian 12, user-data with package and key" "$(cut -c1-200 "$FAKE_AWS_LOG")"
fi
: >"$FAKE_AWS_LOG"
if bash "$ROOT/data/provision/aws-ec2.sh" teardown 2>"$T/err" &&
	grep -q "terminate-instances --instance-ids i-0aaa i-0bbb" "$FAKE_AWS_LOG" &&
	grep -q "wait instance-terminated" "$FAKE_AWS_LOG" &&
	grep -q "delete-placement-group --group-name netsweep-abc-c5n" "$FAKE_AWS_LOG"; then
	pass "aws-ec2.sh teardown terminates the tagged instances and deletes the group"
else
	fail "aws-ec2.sh teardown terminates the tagged instances and deletes the group" "$(cat "$FAKE_AWS_LOG" "$T/err")"
fi
finish
