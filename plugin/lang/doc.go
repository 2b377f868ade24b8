// Package lang is podjail's table of programming languages: for each, the
// images, the commands that build a submission and the command that runs
// it.
//
// A submission is built once and run many times. The runner writes the
// source to BuildDir/Source in a container of BuildImage, runs Compile
// there (no network, read-only root but for BuildDir), and copies the
// Artefacts out; every test then runs Run in a fresh container of RunImage
// with the artefacts mounted read-only under ArtefactDir. Commands are
// exec'd directly, without a shell or a PATH search, so every argv[0] is an
// absolute path. An interpreted language either checks its source in the
// build step and lists the source as its artefact (python3 does that), or
// has no Compile at all, in which case the source is the only artefact and
// no build container runs.
//
// Default returns the built-in table (languages.yaml in this package):
//
//	c11      C11 (gcc)    .c                    gcc -std=c11 -O2 -pipe -static -s -o main main.c -lm
//	gnu11    GNU C11      (none)                gcc -std=gnu11 ... (a Kattis package's .c)
//	cpp17    C++17 (g++)  .cpp .cc .cxx .c++    g++ -std=c++17 -O2 -pipe -static -s -o main main.cpp
//	cpp20    C++20 (g++)  (none)                g++ -std=c++20 -O2 -pipe -static -s -o main main.cpp
//	python3  Python 3     .py                   check: python3 -S -m py_compile main.py; run: python3 -S main.py
//	java     Java 21      .java                 javac -d . Main.java, then jar of every class; run: java ... Main
//	go       Go 1.24      .go                   go build -trimpath -ldflags=-s -o main main.go (static)
//	rust     Rust 2021    .rs                   rustc --edition=2021 -O -C target-feature=+crt-static ...
//	javascript Node.js    .js                   check: node --check main.js; run: node main.js
//	pascal   Free Pascal  .pas .pp              fpc -O2 -XS -Xs -omain main.pas (static)
//	haskell  GHC          .hs                   ghc -O2 -o main main.hs
//	csharp   Mono         .cs                   mcs -optimize+ -out:main.exe main.cs; run: mono main.exe
//	php      PHP          .php                  check: php -l main.php; run: php -d memory_limit=-1 main.php
//	pypy3    PyPy 3       (none)                check: pypy3 -S -m py_compile main.py; run: pypy3 -S main.py
//
// Load merges a languages file into it (podjail's --languages flag).
//
// # Languages file
//
// A YAML mapping from language IDs to their fields. An entry for a built-in
// ID changes only the fields it sets; an entry for a new ID defines a
// language and must set everything that Validate asks for; a null entry
// ("python3: ~") removes a language. IDs, aliases and extensions are
// matched without regard to case.
//
//	name              human name ("C++17 (g++)"); default: the ID
//	aliases           other names for Lookup: [c++, cpp]
//	extensions        file extensions for ForFile: [.cpp, .cc]; an
//	                  extension belongs to one language only
//	build_image       image of the build container (needed with compile)
//	run_image         image of the run containers
//	source            the source's file name in /build: main.cpp
//	compile           argv run in /build: [/usr/bin/g++, ..., main.cpp];
//	                  [] or null: no build step
//	artefacts         files copied out of /build after compile: [main];
//	                  without compile: [source] or nothing
//	run               argv of a run; the artefacts are under
//	                  /run/podjail/artefact: [/run/podjail/artefact/main]
//	extra_time        added to each problem's time limit, for a fixed
//	                  start-up cost: 1s, 500ms, or a number of seconds
//	build_time_limit  default 30s
//	build_memory      default 512MiB; a number of bytes or with a binary
//	                  unit: 512M, 512MiB, 1G, 1GiB
//	env               NAME=VALUE entries added to the environment of the
//	                  build and of every run: [GOMAXPROCS=1]
//	memory_exit_code  the exit code by which the runtime says it ran out
//	                  of memory (a JVM with -XX:+ExitOnOutOfMemoryError:
//	                  3); such a run is MLE, not RTE
//	stack             a run's stack limit, at most its memory limit;
//	                  default the memory limit: 8MiB
//	artefact_hint     added to the compile error when the build makes no
//	                  artefact ("Make sure your class is named Main ...")
//
// Lists are YAML lists of words, each one argument; nothing is split on
// blanks and no shell ever sees them. An example:
//
//	# Use a site image for C++17 and give .cpp files to C++20 instead.
//	cpp17:
//	  run_image: registry.example.org/judge/gcc:14
//	  extensions: [.cc, .cxx]
//	cpp20:
//	  extensions: [.cpp]
//
//	# No Python on this host.
//	python3: ~
//
//	# Ruby 3 from a site image, every field of the built-in ruby replaced.
//	ruby:
//	  name: Ruby 3
//	  aliases: [rb]
//	  extensions: [.rb]
//	  build_image: registry.example.org/judge/ruby:3
//	  run_image: registry.example.org/judge/ruby:3
//	  source: main.rb
//	  compile: [/usr/bin/ruby, -c, main.rb]
//	  artefacts: [main.rb]
//	  run: [/usr/bin/ruby, --disable-gems, /run/podjail/artefact/main.rb]
//	  env: [RUBY_MAX_CPU=1]
//	  extra_time: 500ms
//	  build_memory: 1GiB
//
// Errors name the file, the line and the field: "langs.yaml: line 12:
// language "java21": run: argv[0] "java" must be an absolute path ...".
package lang
