module samsa.dev/samsacontrol

go 1.21
