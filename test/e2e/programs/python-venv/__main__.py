"""One sandbox, and where the program ran: pulumi and pulumi_compute exist only in the
virtualenv the project's Pulumi.yaml names (test/e2e/python-layout.test.ts writes it)."""
import sys

import pulumi
import pulumi_compute as compute

scratch = compute.Sandbox(
    "scratch",
    image="python:3.12-slim",
    compute=compute.SandboxComputeArgs(vcpu_count=2, memory_in_gb=4, container_disk_in_gb=10),
)
pulumi.export("sandboxId", scratch.sandbox_id)
pulumi.export("sandboxState", scratch.state)
pulumi.export("prefix", sys.prefix)
