# Run in the cms image's rootfs (toolchain-rootfs.sh). Links at the versioned paths Judge0's
# languages name (judge0/judge0 db/languages/active.rb; judge0/compilers builds them from
# source) to trixie's programs, for the rows the test VM proves with this image tagged
# localhost/podjail-judge0. These lines are contrib/images/judge0.Containerfile's, which links
# more rows (TestJudge0Links checks that they agree).
set -eu
link() { mkdir -p "$(dirname "$2")"; ln -sfn "$1" "$2"; }
link /bin/bash /usr/local/bash-5.0/bin/bash
link /usr/bin/gcc /usr/local/gcc-9.2.0/bin/gcc
link /usr/bin/g++ /usr/local/gcc-9.2.0/bin/g++
link /usr/bin/mcs /usr/local/mono-6.6.0.161/bin/mcs
link /usr/bin/mono /usr/local/mono-6.6.0.161/bin/mono
link /usr/bin/ghc /usr/local/ghc-8.8.1/bin/ghc
link /usr/lib/jvm/java-21-openjdk-amd64 /usr/local/openjdk13
link /usr/bin/fpc /usr/local/fpc-3.0.4/bin/fpc
link /usr/bin/php /usr/local/php-7.4.1/bin/php
link /usr/bin/python3 /usr/local/python-3.8.1/bin/python3
link /usr/bin/ruby /usr/local/ruby-2.7.0/bin/ruby
link /usr/bin/rustc /usr/local/rust-1.40.0/bin/rustc
# Kotlin: JetBrains' compiler (fetch-cms.txt) in /opt/kotlinc, contrib/images/cms.Containerfile's
# steps; the sources and the JS and Wasm libraries are not needed to compile for the JVM.
mkdir -p /opt/kotlinc
tar -xzf /var/tmp/kotlin-compiler.tgz -C /opt/kotlinc --strip-components=1 --no-same-owner
rm -f /var/tmp/kotlin-compiler.tgz /opt/kotlinc/lib/*-sources.jar /opt/kotlinc/lib/*.klib /opt/kotlinc/bin/*.bat
ln -sfn /opt/kotlinc/bin/kotlinc /usr/bin/kotlinc
[ -x /usr/bin/kotlinc ] && [ -s /opt/kotlinc/lib/kotlin-stdlib.jar ] || { echo "prepare-cms: no kotlinc" >&2; exit 1; }
# The compiler's classes archived (AppCDS) from one compile with the table's flags: a compile
# then loads them mapped, about half its processor time (1.8 s against 3.1 s natively).
mkdir -p /tmp/kt && echo 'fun main() { println(readLine()) }' >/tmp/kt/Main.kt
/usr/bin/java -Xmx768M -Xms32M -XX:ActiveProcessorCount=1 -XX:+UseSerialGC -XX:-UsePerfData -XX:TieredStopAtLevel=1 \
	-XX:ArchiveClassesAtExit=/opt/kotlinc/lib/kotlin-compiler.jsa -Xlog:cds=off -Xlog:cds+dynamic=off \
	-cp /opt/kotlinc/lib/kotlin-compiler.jar org.jetbrains.kotlin.cli.jvm.K2JVMCompiler -kotlin-home /opt/kotlinc -d /tmp/kt /tmp/kt/Main.kt
rm -rf /tmp/kt
[ -s /opt/kotlinc/lib/kotlin-compiler.jsa ] || { echo "prepare-cms: no kotlin-compiler.jsa" >&2; exit 1; }
for l in $(find /usr/local -type l); do
	[ -e "$l" ] || { echo "prepare-cms: $l leads nowhere" >&2; exit 1; }
done
find /usr/local -type l -exec ls -l {} +
