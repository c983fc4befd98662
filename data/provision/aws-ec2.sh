#!/bin/bash
# netsweep provisioning hook for AWS EC2, with the AWS CLI (v2). In a matrix pair:
#
#   <pair name="c5n" instance-type="c5n.18xlarge" region="us-east-1" expected-driver="ena">
#     <setup timeout="15m" wait="10m">data/provision/aws-ec2.sh setup</setup>
#     <teardown timeout="15m">data/provision/aws-ec2.sh teardown</teardown>
#   </pair>
#
# setup: a cluster placement group and two instances of NETSWEEP_INSTANCE_TYPE in it, from the
# current Debian 12 AMI (AWS's public SSM parameter), whose user-data installs netsweep from
# NETSWEEP_DEB_URL and starts the agent service with the key file NETSWEEP_PSK_FILE; waits
# until both run, and prints {"agent": .., "client": .., "instance_ids": [..], ...}.
# teardown: terminates every instance carrying the pair's tag, waits, deletes the group.
# It finds them by tag, not by what setup printed, so a setup cut short is cleaned up too.
#
# From netsweep: NETSWEEP_PAIR, NETSWEEP_INSTANCE_TYPE, NETSWEEP_REGION, NETSWEEP_RUN_UUID,
# NETSWEEP_PSK_FILE. Yours (all optional but the package URL):
#   NETSWEEP_DEB_URL          where the instances fetch the netsweep .deb (make deb)
#   NETSWEEP_AWS_SUBNET       subnet id (default: the default VPC's, chosen by AWS)
#   NETSWEEP_AWS_SG           security group ids allowing TCP/UDP between the two instances
#                             and TCP 5301 from this runner (space-separated)
#   NETSWEEP_AWS_KEY_NAME     an EC2 key pair, for logging in when something goes wrong
#   NETSWEEP_AWS_AMI          an AMI id instead of the current Debian 12
# The key travels in user-data, which anyone allowed ec2:DescribeInstanceAttribute can read:
# use a key for this campaign only.
set -euo pipefail

what=${1:?usage: aws-ec2.sh setup|teardown}
region=${NETSWEEP_REGION:?NETSWEEP_REGION is not set (the pair needs region=)}
itype=${NETSWEEP_INSTANCE_TYPE:?NETSWEEP_INSTANCE_TYPE is not set (the pair needs instance-type=)}
tag="netsweep-${NETSWEEP_RUN_UUID:-manual}-${NETSWEEP_PAIR:?NETSWEEP_PAIR is not set}"
port=5301
aws=(aws --region "$region" --output text)

log() { echo "aws-ec2.sh: $*" >&2; }

tagged_instances() {
	"${aws[@]}" ec2 describe-instances \
		--filters "Name=tag:netsweep-hook,Values=$tag" \
		"Name=instance-state-name,Values=pending,running,stopping,stopped" \
		--query 'Reservations[].Instances[].InstanceId'
}

teardown() {
	local ids
	ids=$(tagged_instances)
	if [ -n "$ids" ]; then
		log "terminating $ids"
		# shellcheck disable=SC2086 # ids are whitespace-separated on purpose
		"${aws[@]}" ec2 terminate-instances --instance-ids $ids >/dev/null
		# shellcheck disable=SC2086
		"${aws[@]}" ec2 wait instance-terminated --instance-ids $ids
	fi
	if "${aws[@]}" ec2 describe-placement-groups --group-names "$tag" >/dev/null 2>&1; then
		log "deleting placement group $tag"
		"${aws[@]}" ec2 delete-placement-group --group-name "$tag"
	fi
}

user_data() {
	local psk=""
	if [ -n "${NETSWEEP_PSK_FILE:-}" ]; then
		psk=$(base64 -w0 <"$NETSWEEP_PSK_FILE")
	fi
	cat <<UD
#!/bin/bash
set -eux
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq curl ca-certificates
curl -fsSL '${NETSWEEP_DEB_URL:?NETSWEEP_DEB_URL is not set: where instances fetch the netsweep .deb}' -o /tmp/netsweep.deb
apt-get install -y -qq /tmp/netsweep.deb
if [ -n '$psk' ]; then
	install -d -m 0750 /etc/netsweep
	echo '$psk' | base64 -d >/etc/netsweep/agent.psk
	chmod 0600 /etc/netsweep/agent.psk
fi
systemctl enable --now netsweep-agent.service
UD
}

setup() {
	local arch ami az ids ips args=()
	arch=$("${aws[@]}" ec2 describe-instance-types --instance-types "$itype" \
		--query 'InstanceTypes[0].ProcessorInfo.SupportedArchitectures[0]')
	[ "$arch" = x86_64 ] && arch=amd64
	ami=${NETSWEEP_AWS_AMI:-$("${aws[@]}" ssm get-parameters \
		--names "/aws/service/debian/release/12/latest/$arch" --query 'Parameters[0].Value')}
	log "placement group $tag (cluster), 2 x $itype from $ami"
	"${aws[@]}" ec2 create-placement-group --group-name "$tag" --strategy cluster \
		--tag-specifications "ResourceType=placement-group,Tags=[{Key=netsweep-hook,Value=$tag}]" >/dev/null
	[ -n "${NETSWEEP_AWS_SUBNET:-}" ] && args+=(--subnet-id "$NETSWEEP_AWS_SUBNET")
	[ -n "${NETSWEEP_AWS_KEY_NAME:-}" ] && args+=(--key-name "$NETSWEEP_AWS_KEY_NAME")
	if [ -n "${NETSWEEP_AWS_SG:-}" ]; then
		# shellcheck disable=SC2206 # a list of group ids
		local sg=($NETSWEEP_AWS_SG)
		args+=(--security-group-ids "${sg[@]}")
	fi
	ids=$("${aws[@]}" ec2 run-instances --count 2 --instance-type "$itype" --image-id "$ami" \
		--placement "GroupName=$tag" --user-data "$(user_data)" \
		--tag-specifications "ResourceType=instance,Tags=[{Key=netsweep-hook,Value=$tag},{Key=Name,Value=$tag}]" \
		"${args[@]}" --query 'Instances[].InstanceId')
	log "launched $ids; waiting until they run"
	# shellcheck disable=SC2086
	"${aws[@]}" ec2 wait instance-running --instance-ids $ids
	# shellcheck disable=SC2086
	ips=$("${aws[@]}" ec2 describe-instances --instance-ids $ids \
		--query 'Reservations[].Instances[].PrivateIpAddress')
	# shellcheck disable=SC2086
	az=$("${aws[@]}" ec2 describe-instances --instance-ids $ids \
		--query 'Reservations[0].Instances[0].Placement.AvailabilityZone')
	# text output: tabs within a line, a line per reservation
	local ipv idv
	read -r -a ipv <<<"$(tr -s '\t\n' '  ' <<<"$ips")"
	read -r -a idv <<<"$(tr -s '\t\n' '  ' <<<"$ids")"
	# The runner waits for the agents itself (the matrix's wait=), so no polling here.
	printf '{"agent": "%s:%d", "client": "%s:%d", "instance_ids": ["%s", "%s"], ' \
		"${ipv[1]}" "$port" "${ipv[0]}" "$port" "${idv[0]}" "${idv[1]}"
	printf '"placement_group": "%s", "availability_zone": "%s", "ami": "%s", "region": "%s"}\n' \
		"$tag" "$az" "$ami" "$region"
}

case $what in
setup) setup ;;
teardown) teardown ;;
*) echo "usage: aws-ec2.sh setup|teardown" >&2; exit 2 ;;
esac
