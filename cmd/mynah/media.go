package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/media"
)

// mediaFlags select media notes: by file_unique_id (the argument), by sticker set and
// emoji, or by the chat and message that carried the file.
type mediaFlags struct {
	agentFlags
	Set     string
	Emoji   string
	Chat    int64
	Message int64
	Kind    string
	Status  string
	JSON    bool
}

func (f *mediaFlags) register(cmd *cobra.Command, selectors bool) {
	f.agentFlags.register(cmd, "agent whose messages --chat/--message name (default: the first)")
	cmd.Flags().StringVar(&f.Set, "set", "", "sticker set name")
	cmd.Flags().StringVar(&f.Emoji, "emoji", "", "sticker emoji (with --set)")
	if selectors {
		cmd.Flags().Int64Var(&f.Chat, "chat", 0, "chat id of a message carrying the file (with --message)")
		cmd.Flags().Int64Var(&f.Message, "message", 0, "message id of a message carrying the file (with --chat)")
	}
}

// mediaCommand is `mynah media list|show|set|rm|describe`: the descriptions mynah keeps
// of the photos, stickers, voice notes and documents its agents were sent.
func mediaCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "media",
		Short: "List, show, edit and try media descriptions (photos, stickers, voice, documents)",
	}
	var list, show, set, rm, describe mediaFlags
	listCmd := &cobra.Command{
		Use:   "list",
		Short: "List media descriptions, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return mediaList(cmd.Context(), list, cmd.OutOrStdout())
		},
	}
	list.register(listCmd, false)
	listCmd.Flags().StringVar(&list.Kind, "kind", "", "only this kind: photo, sticker, voice, document, …")
	listCmd.Flags().StringVar(&list.Status, "status", "", "only this status: described, failed, unsupported")
	listCmd.Flags().BoolVar(&list.JSON, "json", false, "print a JSON array")

	showCmd := &cobra.Command{
		Use:   "show [UNIQUE_ID]",
		Short: "Show the description of one file (by unique id, --set/--emoji, or --chat/--message)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mediaShow(cmd.Context(), show, args, cmd.OutOrStdout())
		},
	}
	show.register(showCmd, true)
	showCmd.Flags().BoolVar(&show.JSON, "json", false, "print JSON")

	setCmd := &cobra.Command{
		Use:   "set [UNIQUE_ID] DESCRIPTION",
		Short: "Set the description of one file; it wins over what a model said",
		Args:  cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mediaSet(cmd.Context(), set, args, cmd.OutOrStdout())
		},
	}
	set.register(setCmd, true)

	rmCmd := &cobra.Command{
		Use:   "rm [UNIQUE_ID]",
		Short: "Forget the description of one file, so it is described again when next seen",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mediaRemove(cmd.Context(), rm, args, cmd.OutOrStdout())
		},
	}
	rm.register(rmCmd, true)

	describeCmd := &cobra.Command{
		Use:   "describe FILE",
		Short: "Describe a local file through the agent's media chain (its describer, transcriber and extractors)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return mediaDescribe(cmd.Context(), describe, args[0], cmd.OutOrStdout())
		},
	}
	describe.agentFlags.register(describeCmd, "agent whose describer to use (default: the first)")
	describeCmd.Flags().BoolVar(&describe.JSON, "json", false, "print JSON")

	cmd.AddCommand(listCmd, showCmd, setCmd, rmCmd, describeCmd)
	return cmd
}

// mediaNoteJSON is one note as the media commands print it.
type mediaNoteJSON struct {
	UniqueID    string `json:"unique_id"`
	Kind        string `json:"kind"`
	SetName     string `json:"sticker_set_name,omitempty"`
	Emoji       string `json:"sticker_name,omitempty"`
	Status      string `json:"status"`
	Description string `json:"description,omitempty"`
	Problem     string `json:"problem,omitempty"`
	Source      string `json:"source,omitempty"`
	Attempts    int    `json:"attempts,omitempty"`
	Updated     string `json:"updated,omitempty"`
}

func noteJSON(n mynah.MediaNote) mediaNoteJSON {
	j := mediaNoteJSON{UniqueID: n.UniqueID, Kind: string(n.Kind), SetName: n.SetName, Emoji: n.Emoji, Status: string(n.Status),
		Description: n.Description, Problem: n.Problem, Source: n.Source, Attempts: n.Attempts}
	if !n.Updated.IsZero() {
		j.Updated = n.Updated.Format(time.RFC3339)
	}
	return j
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// openMedia loads the configuration and opens the store; create makes it when missing
// (an operator may curate descriptions before the first run).
func openMedia(ctx context.Context, f mediaFlags, create bool) (store, agentConfig, error) {
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{NoKeys: true})
	if err != nil {
		return nil, agentConfig{}, err
	}
	db, err := openStore(ctx, cfg, create)
	return db, a, err
}

func mediaList(ctx context.Context, f mediaFlags, w io.Writer) error {
	db, _, err := openMedia(ctx, f, false)
	if err != nil {
		return err
	}
	defer db.Close()
	notes, err := db.MediaNotes(ctx, mynah.MediaFilter{Kind: mynah.MediaKind(f.Kind), SetName: f.Set, Emoji: f.Emoji, Status: mynah.MediaStatus(f.Status)})
	if err != nil {
		return err
	}
	if f.JSON {
		out := make([]mediaNoteJSON, len(notes))
		for i, n := range notes {
			out[i] = noteJSON(n)
		}
		return printJSON(w, out)
	}
	if len(notes) == 0 {
		_, err := fmt.Fprintln(w, "No media descriptions yet.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UNIQUE ID\tKIND\tSTICKER\tSTATUS\tSOURCE\tDESCRIPTION")
	for _, n := range notes {
		sticker := ""
		if n.SetName != "" || n.Emoji != "" {
			sticker = n.SetName + "::" + n.Emoji
		}
		text := n.Description
		if n.Status != mynah.MediaDescribed {
			text = n.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n.UniqueID, n.Kind, sticker, n.Status, n.Source, oneLine(text, 80))
	}
	return tw.Flush()
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// selectMedia resolves the selector of f and args (a unique id, --set/--emoji, or
// --chat/--message) to the files it names, with what is known of each. A file with no
// note yet comes back as a note of status "" (only its id, kind and sticker fields).
func selectMedia(ctx context.Context, db store, a agentConfig, f mediaFlags, args []string) ([]mynah.MediaNote, error) {
	byID := len(args) > 0
	bySticker := f.Set != "" || f.Emoji != ""
	byMessage := f.Chat != 0 || f.Message != 0
	n := 0
	for _, b := range []bool{byID, bySticker, byMessage} {
		if b {
			n++
		}
	}
	if n != 1 {
		return nil, usageError{errors.New("name one file: a unique id (see mynah media list), --set and --emoji, or --chat and --message")}
	}
	switch {
	case byID:
		note, err := db.MediaNote(ctx, args[0])
		if errors.Is(err, mynah.ErrNotFound) {
			return []mynah.MediaNote{{UniqueID: args[0]}}, nil
		}
		return []mynah.MediaNote{note}, err
	case bySticker:
		if f.Set == "" || f.Emoji == "" {
			return nil, usageError{errors.New("--set and --emoji go together")}
		}
		notes, err := db.MediaNotes(ctx, mynah.MediaFilter{Kind: mynah.MediaSticker, SetName: f.Set, Emoji: f.Emoji})
		if err == nil && len(notes) == 0 {
			err = fmt.Errorf("no sticker %s::%s has been seen yet (a sticker is known once someone sends it, or once it is in an agent's stickers)", f.Set, f.Emoji)
		}
		return notes, err
	}
	if f.Chat == 0 || f.Message <= 0 {
		return nil, usageError{errors.New("--chat and --message go together")}
	}
	m, err := db.Message(ctx, a.Name, mynah.ChatID(f.Chat), mynah.MessageID(f.Message))
	if errors.Is(err, mynah.ErrNotFound) {
		return nil, fmt.Errorf("%s has no message %d in chat %d", a.Name, f.Message, f.Chat)
	}
	if err != nil {
		return nil, err
	}
	var notes []mynah.MediaNote
	for _, md := range m.Media {
		if md.FileUniqueID == "" {
			continue
		}
		note, err := db.MediaNote(ctx, md.FileUniqueID)
		if errors.Is(err, mynah.ErrNotFound) {
			note, err = mynah.MediaNote{UniqueID: md.FileUniqueID, Kind: md.Kind, SetName: md.SetName, Emoji: md.Emoji, Description: md.Description}, nil
		}
		if err != nil {
			return nil, err
		}
		notes = append(notes, note)
	}
	if len(notes) == 0 {
		return nil, fmt.Errorf("message %d in chat %d carries no file", f.Message, f.Chat)
	}
	return notes, nil
}

func mediaShow(ctx context.Context, f mediaFlags, args []string, w io.Writer) error {
	db, a, err := openMedia(ctx, f, false)
	if err != nil {
		return err
	}
	defer db.Close()
	notes, err := selectMedia(ctx, db, a, f, args)
	if err != nil {
		return err
	}
	if f.JSON {
		out := make([]mediaNoteJSON, len(notes))
		for i, n := range notes {
			out[i] = noteJSON(n)
		}
		return printJSON(w, out)
	}
	for _, n := range notes {
		fmt.Fprintf(w, "unique id:   %s\n", n.UniqueID)
		if n.Kind != "" {
			fmt.Fprintf(w, "kind:        %s\n", n.Kind)
		}
		if n.SetName != "" || n.Emoji != "" {
			fmt.Fprintf(w, "sticker:     %s::%s\n", n.SetName, n.Emoji)
		}
		status := string(n.Status)
		if status == "" {
			status = "not described yet"
		}
		fmt.Fprintf(w, "status:      %s\n", status)
		if n.Source != "" {
			fmt.Fprintf(w, "source:      %s (%s)\n", n.Source, n.Updated.Local().Format("2006-01-02 15:04"))
		}
		if n.Problem != "" {
			fmt.Fprintf(w, "problem:     %s (after %d attempts)\n", n.Problem, n.Attempts)
		}
		if n.Description != "" {
			fmt.Fprintf(w, "description: %s\n", n.Description)
		}
	}
	return nil
}

func mediaSet(ctx context.Context, f mediaFlags, args []string, w io.Writer) error {
	text := strings.TrimSpace(args[len(args)-1])
	if text == "" {
		return usageError{errors.New("the description is empty (mynah media rm forgets one)")}
	}
	db, a, err := openMedia(ctx, f, true)
	if err != nil {
		return err
	}
	defer db.Close()
	notes, err := selectMedia(ctx, db, a, f, args[:len(args)-1])
	if err != nil {
		return err
	}
	if len(notes) != 1 {
		return fmt.Errorf("that names %d files; name one by its unique id (mynah media show lists them)", len(notes))
	}
	n := notes[0]
	n.Status, n.Description, n.Problem, n.Source, n.Attempts, n.Updated = mynah.MediaDescribed, text, "", "operator", 0, time.Now()
	if err := db.PutMediaNote(ctx, n); err != nil {
		return err
	}
	if f.Chat != 0 {
		// The message named shows it at once; others show it when next described.
		if err := db.SetMediaDescription(ctx, a.Name, mynah.ChatID(f.Chat), mynah.MessageID(f.Message), n.UniqueID, text); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "Set the description of %s: %s\n", n.UniqueID, text)
	return err
}

func mediaRemove(ctx context.Context, f mediaFlags, args []string, w io.Writer) error {
	db, a, err := openMedia(ctx, f, false)
	if err != nil {
		return err
	}
	defer db.Close()
	notes, err := selectMedia(ctx, db, a, f, args)
	if err != nil {
		return err
	}
	for _, n := range notes {
		if n.Status == "" {
			fmt.Fprintf(w, "%s has no description to forget.\n", n.UniqueID)
			continue
		}
		if err := db.DeleteMediaNote(ctx, n.UniqueID); err != nil {
			return err
		}
		fmt.Fprintf(w, "Forgot the description of %s; it is described again when next seen.\n", n.UniqueID)
	}
	return nil
}

func mediaDescribe(ctx context.Context, f mediaFlags, path string, w io.Writer) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	cfg, a, err := loadPicked(f.agentFlags, loadOptions{})
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, true)
	if err != nil {
		return err
	}
	defer db.Close()
	log := slog.New(slog.DiscardHandler)
	sense, err := mediaAgent(cfg, a, nil, httpClient(), log)
	if err != nil {
		return err
	}
	eng := media.New(db, log, nil)
	eng.Add(sense)
	note, err := eng.DescribeFile(ctx, a.Name, filepath.Base(path), data)
	if err != nil {
		return err
	}
	if f.JSON {
		return printJSON(w, noteJSON(note))
	}
	if note.Status != mynah.MediaDescribed {
		return fmt.Errorf("%s could not be described: %s", filepath.Base(path), note.Problem)
	}
	_, err = fmt.Fprintln(w, note.Description)
	return err
}
