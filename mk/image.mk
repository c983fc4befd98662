# make image: netsweep's OCI image (packaging/Containerfile) from this build, with podman, else
# docker, built from a root file system mk/image.sh stages — no base image is pulled, so it
# builds without a registry. Tags $(IMAGE):$(NS_VERSION) and :latest; with a kubectl
# (KUBECTL=path, default the one on PATH) also $(IMAGE)-runner, which adds it for the
# Kubernetes runner. IMAGE_TOOL=podman|docker chooses.
IMAGE      ?= localhost/netsweep
IMAGE_TOOL ?= $(shell command -v podman 2>/dev/null || command -v docker 2>/dev/null)
KUBECTL    ?= $(shell command -v kubectl 2>/dev/null)
IMAGE_DIR   = $(BUILD)/image
NS_COMMIT   = $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)

.PHONY: image
image: all
	@if [ -z "$(IMAGE_TOOL)" ]; then \
		echo "make image: needs podman or docker (apt-get install podman catatonit)" >&2; \
		exit 2; fi
	@echo "image root: $$(sh mk/image.sh $(IMAGE_DIR) $(BIN) $(KUBECTL)) KiB"
	cp packaging/Containerfile packaging/Containerfile.runner $(IMAGE_DIR)/
	$(IMAGE_TOOL) build --format docker -f $(IMAGE_DIR)/Containerfile \
		--build-arg VERSION=$(NS_VERSION) --build-arg COMMIT=$(NS_COMMIT) \
		--build-arg CREATED=$$(date -u +%Y-%m-%dT%H:%M:%SZ) \
		-t $(IMAGE):$(NS_VERSION) -t $(IMAGE):latest $(IMAGE_DIR)
	@if [ -n "$(KUBECTL)" ]; then \
		$(IMAGE_TOOL) build --format docker -f $(IMAGE_DIR)/Containerfile.runner \
			--build-arg BASE=$(IMAGE):$(NS_VERSION) \
			-t $(IMAGE)-runner:$(NS_VERSION) -t $(IMAGE)-runner:latest $(IMAGE_DIR); \
	else echo "make image: no kubectl (KUBECTL=path): no $(IMAGE)-runner image"; fi
ITESTS += tests/integration/image_agent.sh tests/integration/kube_manifests.sh tests/integration/kube_play.sh
