variable "name" {
  description = "Name of the placement group and tag of every resource (one per pair and run)"
  type        = string
}

variable "region" {
  description = "AWS region (the pair's region=)"
  type        = string
}

variable "instance_type" {
  description = "EC2 instance type of both instances (the pair's instance-type=)"
  type        = string
}

variable "deb_url" {
  description = "Where the instances fetch the netsweep .deb (built by make deb)"
  type        = string
}

variable "psk_file" {
  description = "Key file the agents start with (NETSWEEP_PSK_FILE); empty = none"
  type        = string
  default     = ""
}

variable "ami" {
  description = "An AMI id instead of the current Debian 12"
  type        = string
  default     = ""
}

variable "subnet_id" {
  description = "Subnet id; empty = the default VPC's"
  type        = string
  default     = ""
}

variable "security_group_ids" {
  description = "Security groups allowing traffic between the instances and TCP 5301 from the runner"
  type        = list(string)
  default     = []
}

variable "key_name" {
  description = "EC2 key pair for logging in; empty = none"
  type        = string
  default     = ""
}

variable "agent_port" {
  description = "Control port of the agents"
  type        = number
  default     = 5301
}
