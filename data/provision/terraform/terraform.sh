#!/bin/bash
# netsweep provisioning hook driving the Terraform module in this folder. In a matrix pair:
#   <setup timeout="20m" wait="10m">data/provision/terraform/terraform.sh setup</setup>
#   <teardown timeout="20m">data/provision/terraform/terraform.sh teardown</teardown>
# Each pair of each run gets its own state file under NETSWEEP_TF_STATE_DIR (default
# ~/.cache/netsweep/terraform), so teardown (also one --resume runs later) destroys exactly
# what setup made. Needs NETSWEEP_DEB_URL; TF_VAR_subnet_id, TF_VAR_key_name, ... pass the
# module's other variables (variables.tf).
set -euo pipefail
what=${1:?usage: terraform.sh setup|teardown}
here=$(cd "$(dirname "$0")" && pwd)
name="netsweep-${NETSWEEP_RUN_UUID:-manual}-${NETSWEEP_PAIR:?NETSWEEP_PAIR is not set}"
states=${NETSWEEP_TF_STATE_DIR:-$HOME/.cache/netsweep/terraform}
mkdir -p "$states"
state=$states/$name.tfstate
vars=(-var "name=$name" -var "region=${NETSWEEP_REGION:?the pair needs region=}"
	-var "instance_type=${NETSWEEP_INSTANCE_TYPE:?the pair needs instance-type=}"
	-var "deb_url=${NETSWEEP_DEB_URL:-unused}" -var "psk_file=${NETSWEEP_PSK_FILE:-}")
tf() { terraform -chdir="$here" "$@"; }

# terraform's own chatter goes to stderr: stdout carries only the JSON for the runner
tf init -input=false >&2
case $what in
setup)
	tf apply -input=false -auto-approve -state="$state" "${vars[@]}" >&2
	tf output -state="$state" -raw setup_json
	echo
	;;
teardown)
	[ -f "$state" ] || { echo "terraform.sh: no state $state: nothing to destroy" >&2; exit 0; }
	tf destroy -input=false -auto-approve -state="$state" "${vars[@]}" >&2
	rm -f "$state" "$state.backup"
	;;
*) echo "usage: terraform.sh setup|teardown" >&2; exit 2 ;;
esac
