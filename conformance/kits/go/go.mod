module toolnexus.dev/conformance/kit

go 1.23
