# netsweep provisioning with Terraform: a cluster placement group and two instances of one type
# from the current Debian 12 AMI, whose user-data installs netsweep and starts the agent with
# its key. terraform.sh (next to this file) is the matrix hook that applies and destroys it.

terraform {
  required_version = ">= 1.3"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.0"
    }
  }
}

provider "aws" {
  region = var.region
}

data "aws_ec2_instance_type" "this" {
  instance_type = var.instance_type
}

locals {
  arch = data.aws_ec2_instance_type.this.supported_architectures[0] == "arm64" ? "arm64" : "amd64"
  psk  = var.psk_file == "" ? "" : filebase64(var.psk_file)
}

# AWS publishes the current Debian AMIs as public SSM parameters.
data "aws_ssm_parameter" "debian" {
  name = "/aws/service/debian/release/12/latest/${local.arch}"
}

resource "aws_placement_group" "this" {
  name     = var.name
  strategy = "cluster"
  tags     = { "netsweep-hook" = var.name }
}

resource "aws_instance" "node" {
  count                  = 2
  ami                    = var.ami != "" ? var.ami : nonsensitive(data.aws_ssm_parameter.debian.value)
  instance_type          = var.instance_type
  placement_group        = aws_placement_group.this.id
  subnet_id              = var.subnet_id != "" ? var.subnet_id : null
  vpc_security_group_ids = length(var.security_group_ids) > 0 ? var.security_group_ids : null
  key_name               = var.key_name != "" ? var.key_name : null
  user_data = templatefile("${path.module}/user-data.sh.tftpl", {
    deb_url = var.deb_url
    psk_b64 = local.psk
  })
  tags = {
    Name            = "${var.name}-${count.index == 0 ? "client" : "agent"}"
    "netsweep-hook" = var.name
  }
}
