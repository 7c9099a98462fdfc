module github.com/grbit/go-json

go 1.26
