#!/bin/sh
# Builds the Java kit and this starter when a source is newer than the last build, then runs the
# driver. `run --jobs N` starts N of these at once: the build runs under a lock (flock), the
# freshness mark is written only after a whole build, and every waiting driver re-checks it
# under the lock, so none starts from a half-built jar. Build output stays under target/ dirs.
set -e
here=$(cd "$(dirname "$0")" && pwd)
kit="$here/../../kits/java"
mark="$here/target/.built"
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
			touch "$mark"
		fi
	) 9>"$here/target/.build.lock" >&2
fi
# Start-up flags: the driver is short-lived and single-threaded; C1 only and the serial GC start fastest.
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -jar "$here/target/starter-java.jar"
