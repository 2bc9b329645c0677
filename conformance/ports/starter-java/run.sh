#!/bin/sh
# Builds the Java kit and this starter when a source is newer than the last build, then runs the
# driver. `run --jobs N` starts N of these at once: the build runs under a lock (flock), the
# freshness mark is written only after a whole build, and every waiting driver re-checks it
# under the lock, so none starts from a half-built jar. Build output stays under target/ dirs.
set -e
here=$(cd "$(dirname "$0")" && pwd)
kit="$here/../../kits/java"
mark="$here/target/.built"
jar="$here/target/starter-java.jar"
# The driver is short-lived and single-threaded: C1 only and the serial GC start fastest. JVM log
# lines (a CDS warning, say) go to stderr: stdout is the wire.
flags="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:disable -Xlog:all=warning:stderr"
stale() {
	[ ! -f "$mark" ] || [ -n "$(find "$here/src" "$here/pom.xml" "$kit/src/main" "$kit/pom.xml" -newer "$mark" -print 2>/dev/null | head -n 1)" ]
}
if stale; then
	mkdir -p "$here/target"
	(
		flock 9
		if stale; then
			mvn -q -B -f "$kit/pom.xml" install -DskipTests
			mvn -q -B -f "$here/pom.xml" package
			# A class-data archive of one short session cuts the JVM's start (AppCDS, JDK 13+).
			printf '%s\n' '{"cmd":"hello","protocol":1,"seq":0}' '{"cmd":"shutdown","seq":1}' |
				java $flags -XX:ArchiveClassesAtExit="$here/target/app.jsa" -jar "$jar" >/dev/null || rm -f "$here/target/app.jsa"
			touch "$mark"
		fi
	) 9>"$here/target/.build.lock" >&2
fi
exec java $flags -XX:SharedArchiveFile="$here/target/app.jsa" -Xshare:auto -jar "$jar"
