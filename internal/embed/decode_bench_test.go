package embed

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecode: a batch's answer as a real endpoint sends it (32
// vectors of 1,024 numbers with 8 to 9 digits).
func BenchmarkDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var items []item
	for i := range 32 {
		v := make([]float32, 1024)
		for j := range v {
			v[j] = r.Float32()*2 - 1
		}
		items = append(items, item{"embedding", i, v})
	}
	data, _ := json.Marshal(map[string]any{"object": "list", "data": items, "model": "m"})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := &Client{}
		if _, err := c.decode(data, 32); err != nil {
			b.Fatal(err)
		}
	}
}
