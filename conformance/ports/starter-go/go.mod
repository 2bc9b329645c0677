module toolnexus.dev/conformance/starter-go

go 1.23

require toolnexus.dev/conformance/kit v0.0.0

replace toolnexus.dev/conformance/kit => ../../kits/go
