# setup_json is what a netsweep setup hook prints: the runner reads agent and client and stores
# the rest with the run.
output "setup_json" {
  value = jsonencode({
    agent             = "${aws_instance.node[1].private_ip}:${var.agent_port}"
    client            = "${aws_instance.node[0].private_ip}:${var.agent_port}"
    instance_ids      = aws_instance.node[*].id
    placement_group   = aws_placement_group.this.name
    availability_zone = aws_instance.node[0].availability_zone
    ami               = aws_instance.node[0].ami
    region            = var.region
  })
}
