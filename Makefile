# Front door: `make run` and `make test` set up a fresh machine (scripts/install-deps.sh), build and go.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps build run test test-stress test-asan fuzz bench format clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DSANDMAN_WERROR=ON $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/Makefile
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)

run: build
	@./scripts/run.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The same suite with every core loaded by CPU hogs: it must pass as it does on a quiet machine.
test-stress: build
	./scripts/test-stress.sh $(BUILD) $(JOBS)

test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DSANDMAN_WERROR=ON -DSANDMAN_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null
	@$(MAKE) --no-print-directory -C $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(JOBS)

# Every library instrumented (clang, libFuzzer, ASan, UBSan); each target runs FUZZ_SECONDS
# (default 60) and what it finds is merged, minimised, into tests/fuzz/corpus/ (tests/fuzz/run.sh).
# FUZZ_TARGETS picks targets; FUZZ_VTERM_SRC=<libvterm 0.1.x tree> instruments libvterm too.
fuzz:
	@SANDMAN_FUZZ_DEPS=1 ./scripts/install-deps.sh
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang -DSANDMAN_FUZZ=ON -DSANDMAN_WERROR=ON \
	  -DSANDMAN_FUZZ_VTERM_SRC=$(FUZZ_VTERM_SRC) $(CMAKE_FLAGS) >/dev/null
	@$(MAKE) --no-print-directory -C $(FUZZ_BUILD) -j$(JOBS) fuzz_targets
	./tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

bench: build
	./bench/run.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
