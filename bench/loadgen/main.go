// loadgen drives an HTTPS server over a fixed pool of keep-alive connections, as the API server
// does with a webhook, and prints one JSON line of results. Standard library only, so bench:webhook
// builds it with the Go toolchain the test control plane already needs.
//
// Closed loop (-rate 0): each connection sends back to back, for throughput.
// Open loop (-rate N): requests are due at fixed intervals; latency counts from the due time, so a
// stalled server is charged for the queue it causes (no coordinated omission).
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

type payload struct {
	Path string `json:"path"`
	Body string `json:"body"`
}

type result struct {
	Rps    float64 `json:"rps"`
	P50    float64 `json:"p50"`
	P99    float64 `json:"p99"`
	Max    float64 `json:"max"`
	Errors int64   `json:"errors"`
	N      int     `json:"n"`
	// Requests sent in the warm-up, and this process's CPU time per request over both, so the
	// caller can put the server's CPU time per request beside it.
	WarmupN     int     `json:"warmupN"`
	ClientCPUUs float64 `json:"clientCpuUs"`
}

func main() {
	base := flag.String("url", "", "https://host:port")
	caFile := flag.String("ca", "", "CA certificate (PEM)")
	payloadFile := flag.String("payloads", "", "JSON array of {path, body}")
	conns := flag.Int("connections", 20, "keep-alive connections")
	duration := flag.Duration("duration", 5*time.Second, "measured time")
	warmup := flag.Duration("warmup", time.Second, "unmeasured time before")
	rate := flag.Float64("rate", 0, "requests/s offered (0: closed loop)")
	flag.Parse()

	pem, err := os.ReadFile(*caFile)
	check(err)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		check(fmt.Errorf("no certificate in %s", *caFile))
	}
	raw, err := os.ReadFile(*payloadFile)
	check(err)
	var payloads []payload
	check(json.Unmarshal(raw, &payloads))
	bodies := make([][]byte, len(payloads))
	for i, p := range payloads {
		bodies[i] = []byte(p.Body)
	}

	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		MaxConnsPerHost:     *conns,
		MaxIdleConnsPerHost: *conns,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}, Timeout: 30 * time.Second}

	var errors int64
	send := func(i int) {
		p := payloads[i%len(payloads)]
		req, _ := http.NewRequest(http.MethodPost, *base+p.Path, bytes.NewReader(bodies[i%len(bodies)]))
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			atomic.AddInt64(&errors, 1)
			return
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			atomic.AddInt64(&errors, 1)
		}
	}

	run := func(d time.Duration) []float64 {
		var mu sync.Mutex
		lat := make([]float64, 0, 1<<16)
		var wg sync.WaitGroup
		start := time.Now()
		end := start.Add(d)
		if *rate <= 0 {
			var next int64
			for w := 0; w < *conns; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					local := make([]float64, 0, 4096)
					for time.Now().Before(end) {
						i := int(atomic.AddInt64(&next, 1))
						t := time.Now()
						send(i)
						local = append(local, float64(time.Since(t).Microseconds())/1000)
					}
					mu.Lock()
					lat = append(lat, local...)
					mu.Unlock()
				}()
			}
		} else {
			due := make(chan time.Time, 1<<16)
			for w := 0; w < *conns; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					local := make([]float64, 0, 4096)
					i := 0
					for t := range due {
						send(i)
						i++
						local = append(local, float64(time.Since(t).Microseconds())/1000)
					}
					mu.Lock()
					lat = append(lat, local...)
					mu.Unlock()
				}()
			}
			interval := time.Duration(float64(time.Second) / *rate)
			for n := 0; ; n++ {
				at := start.Add(time.Duration(n) * interval)
				if !at.Before(end) {
					break
				}
				if w := time.Until(at); w > 0 {
					time.Sleep(w)
				}
				due <- at
			}
			close(due)
		}
		wg.Wait()
		return lat
	}

	cpu0 := cpuSeconds()
	warm := len(run(*warmup))
	atomic.StoreInt64(&errors, 0)
	started := time.Now()
	lat := run(*duration)
	elapsed := time.Since(started).Seconds()
	sort.Float64s(lat)
	pct := func(p float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		i := int(p / 100 * float64(len(lat)))
		if i >= len(lat) {
			i = len(lat) - 1
		}
		return lat[i]
	}
	cpuPerReq := (cpuSeconds() - cpu0) * 1e6 / float64(len(lat)+warm)
	out, _ := json.Marshal(result{Rps: float64(len(lat)) / elapsed, P50: pct(50), P99: pct(99), Max: pct(100), Errors: atomic.LoadInt64(&errors), N: len(lat), WarmupN: warm, ClientCPUUs: cpuPerReq})
	fmt.Println(string(out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(2)
	}
}
