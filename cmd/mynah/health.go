package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// healthCommand asks a running serve whether it is ready, for container health checks
// (the image has no curl): it exits 0 when /readyz answers 200.
func healthCommand() *cobra.Command {
	var url string
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Exit 0 if the mynah serving at --url is ready (for HEALTHCHECK); needs metrics.listen",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return usageError{err}
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("not ready: %w", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("not ready: %s", strings.TrimSpace(string(body)))
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.TrimSpace(string(body)))
			return nil
		},
	}
	cmd.Flags().StringVar(&url, "url", "http://127.0.0.1:9464/readyz", "the readiness URL of the running mynah (metrics.listen + /readyz)")
	return cmd
}
