#!/bin/sh
# Wraps a real driver ($1 … is its command) and answers every successful build as a port whose
# createToolkit threw (PROTOCOL.md §5.2 `raised`), keeping the answer's seq.
"$@" | sed -u 's/^{"ok":true,"toolkit":.*,"seq":\([0-9]*\)}$/{"ok":true,"raised":"createToolkit exploded","seq":\1}/'
