// yaml-oracle reads YAML the way kubectl and the API server's clients do: it splits a multi-document stream with
// k8s.io/apimachinery's YAML reader and converts each document with sigs.k8s.io/yaml (go-yaml v2 semantics: YAML 1.1
// booleans such as yes/on, 0755 as octal, timestamps kept as strings) into JSON. One JSON line out per document:
//
//	{"doc": <the document as JSON>}      converted
//	{"error": "..."}                     the document does not convert (e.g. a duplicate key)
//
// bench:plan's parser comparison holds each JavaScript YAML parser to these answers (bench/yaml-parsers.ts).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

func main() {
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(os.Stdin, 1<<20))
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "yaml-oracle: %v\n", err)
			os.Exit(1)
		}
		out, err := yaml.YAMLToJSON(doc)
		var line []byte
		if err != nil {
			line, _ = json.Marshal(map[string]string{"error": err.Error()})
		} else {
			line = append(append([]byte(`{"doc":`), out...), '}')
		}
		w.Write(append(line, '\n'))
	}
}
