# Run in the cms image's rootfs (toolchain-rootfs.sh). Links at the versioned paths Judge0's
# languages name (judge0/judge0 db/languages/active.rb, built from source by judge0/compilers)
# to trixie's programs, for the rows Judge0 serves from this image (the test VM tags it
# localhost/podjail-judge0). contrib/images/judge0.Containerfile makes the same links:
# keep the two lists alike (TestJudge0Links checks it).
set -eu
link() { mkdir -p "$(dirname "$2")" && ln -sfn "$1" "$2"; }
for v in 7.4.0 8.3.0 9.2.0; do
	link /usr/bin/gcc /usr/local/gcc-$v/bin/gcc
	link /usr/bin/g++ /usr/local/gcc-$v/bin/g++
	link /usr/lib/x86_64-linux-gnu /usr/local/gcc-$v/lib64
done
link /bin/bash /usr/local/bash-5.0/bin/bash
link /usr/bin/mcs /usr/local/mono-6.6.0.161/bin/mcs
link /usr/bin/mono /usr/local/mono-6.6.0.161/bin/mono
link /usr/bin/ghc /usr/local/ghc-8.8.1/bin/ghc
link /usr/lib/jvm/java-21-openjdk-amd64/bin/javac /usr/local/openjdk13/bin/javac
link /usr/lib/jvm/java-21-openjdk-amd64/bin/java /usr/local/openjdk13/bin/java
link /usr/bin/fpc /usr/local/fpc-3.0.4/bin/fpc
link /usr/bin/php /usr/local/php-7.4.1/bin/php
link /usr/bin/python3 /usr/local/python-3.8.1/bin/python3
link /usr/bin/ruby /usr/local/ruby-2.7.0/bin/ruby
link /usr/bin/rustc /usr/local/rust-1.40.0/bin/rustc
# every link must reach a program
find /usr/local -type l ! -name lib64 | while read -r l; do [ -x "$l" ] || { echo "prepare-cms: $l leads nowhere" >&2; exit 1; }; done
ls -l /usr/local/*/bin
