# The two commands of the README. Everything else is CMake/ctest.
#   make demo   set up, then show this machine's memory targets and place data
#               by intent — here and in the multi-NUMA VM — and memory the whole
#               job reaches: a throw-away Ceph cluster, a region written on one
#               node and read on another, a checkpoint restored on another node
#   make test   set up, then run the whole test suite (as CI does)
.PHONY: demo test deps build

deps:
	./scripts/install-deps.sh

build: deps
	cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build build

demo: build
	./scripts/demo.sh build

test: deps
	./scripts/run-tests.sh
