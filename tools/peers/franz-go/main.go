// Command peers-setup readies a Samsa cluster for franz-go's integration tests, as franz-go's CI
// readies Kafka (there with a health check and kafka-configs.sh):
//
//	go run . -bootstrap 127.0.0.1:19100 -brokers 3 -scram-seeds 127.0.0.1:19101,... -user testuser -password testpass
//
// It waits until Metadata lists -brokers brokers, creates (or updates) the SCRAM-SHA-256 user
// with AlterUserScramCredentials, then waits until that user can log in on every SASL seed
// (in a cluster the credential reaches the other brokers through etcd).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/scram"
)

func main() {
	bootstrap := flag.String("bootstrap", "127.0.0.1:9092", "comma-separated seed brokers (a PLAINTEXT listener)")
	brokers := flag.Int("brokers", 1, "wait until Metadata lists this many brokers")
	scramSeeds := flag.String("scram-seeds", "", "comma-separated SASL_PLAINTEXT addresses on which the user must be able to log in")
	user := flag.String("user", "testuser", "user name")
	password := flag.String("password", "testpass", "password")
	iterations := flag.Int("iterations", 4096, "SCRAM iterations")
	timeout := flag.Duration("timeout", 90*time.Second, "give up after this long")
	flag.Parse()

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(*bootstrap, ",")...))
	if err != nil {
		fail(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)

	if err := retry(ctx, func() error {
		m, err := adm.BrokerMetadata(ctx)
		if err != nil {
			return err
		}
		if len(m.Brokers) < *brokers {
			return fmt.Errorf("Metadata lists %d of %d brokers", len(m.Brokers), *brokers)
		}
		return nil
	}); err != nil {
		fail(err)
	}

	if err := retry(ctx, func() error {
		res, err := adm.AlterUserSCRAMs(ctx, nil, []kadm.UpsertSCRAM{{
			User:       *user,
			Mechanism:  kadm.ScramSha256,
			Iterations: int32(*iterations),
			Password:   *password,
		}})
		if err != nil {
			return err
		}
		return res.Error()
	}); err != nil {
		fail(fmt.Errorf("creating SCRAM user %s: %w", *user, err))
	}

	if *scramSeeds != "" {
		for _, seed := range strings.Split(*scramSeeds, ",") {
			if err := retry(ctx, func() error {
				sc, err := kgo.NewClient(
					kgo.SeedBrokers(seed),
					kgo.SASL(scram.Auth{User: *user, Pass: *password}.AsSha256Mechanism()),
				)
				if err != nil {
					return err
				}
				defer sc.Close()
				pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
				defer pcancel()
				return sc.Ping(pctx)
			}); err != nil {
				fail(fmt.Errorf("SCRAM login on %s: %w", seed, err))
			}
		}
	}
	fmt.Printf("peers-setup: %d broker(s) up, SCRAM-SHA-256 user %s ready\n", *brokers, *user)
}

// retry calls f every 250 ms until it succeeds or ctx ends; the error is f's last one.
func retry(ctx context.Context, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "peers-setup: %v\n", err)
	os.Exit(1)
}
