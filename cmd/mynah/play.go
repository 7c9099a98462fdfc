package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mynah-ai/mynah"
	"github.com/mynah-ai/mynah/internal/access"
	"github.com/mynah-ai/mynah/internal/sqlite"
	"github.com/mynah-ai/mynah/internal/telegram/telegramtest"
)

func playCommand() *cobra.Command {
	var o playOptions
	cmd := &cobra.Command{
		Use:   "play",
		Short: "Talk to an agent in this terminal, through the whole pipeline",
		Long: `play runs an agent exactly as serve does, but against a Bot API emulator inside this
process: type a line to send it as a Telegram message; the agent's replies are printed.
It uses the configured model provider. No bot token is needed. Each play starts a new
conversation (kept in play.db in the data dir until the next play; logs go to play.log).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return play(cmd.Context(), o, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVarP(&o.Dir, "config", "c", ".", "configuration directory (with mynah.yaml)")
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent to talk to (default: the first)")
	cmd.Flags().BoolVar(&o.Group, "group", false, "talk in a group chat instead of a private chat")
	cmd.Flags().StringVar(&o.Crew, "crew", "", "talk to a crew in a group: every line goes to its members, who answer in turn")
	return cmd
}

type playOptions struct {
	Dir   string
	Agent string
	Group bool
	Crew  string // a crew's name: play its members in a group
}

// playUser is the person at the terminal.
func playUser() telegramtest.User {
	name := os.Getenv("USER")
	if name == "" || name == "root" {
		name = "You"
	}
	return telegramtest.User{ID: 10001, FirstName: name, Username: "player"}
}

func play(ctx context.Context, o playOptions, stdin io.Reader, stdout io.Writer) error {
	cfg, err := loadConfig(o.Dir, os.Getenv, loadOptions{NoTokens: true})
	if err != nil {
		return err
	}
	chat := telegramtest.Supergroup(-1001000000001, "Play group")
	agents, err := playAgents(cfg, o, chat.ID)
	if err != nil {
		return err
	}
	agent := agents[0]
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	// The emulator is new each time and numbers updates and messages from scratch, so the
	// play database starts over too (Telegram itself never reuses ids). It is a SQLite
	// file of its own also when the installation runs on PostgreSQL: a play never writes
	// to the database the bots serve from.
	dbFile := "play.db"
	cfg.Store = ""
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(cfg.DataDir, dbFile+suffix)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	logFile, err := os.OpenFile(filepath.Join(cfg.DataDir, "play.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := newLogger(cfg.Log, logFile)

	// The emulator plays Telegram, with a bot for each agent.
	botUser := playBot(agent, 0)
	emu := telegramtest.New(telegramtest.Options{BotUser: botUser, OnViolation: func(err error) { log.Warn("Bot API request outside the spec", "err", err) }})
	tokens, names := map[string]string{agent.Name: telegramtest.DefaultToken}, map[int64]string{botUser.ID: agent.Name}
	for i, a := range agents[1:] {
		b := playBot(a, i+1)
		tokens[a.Name] = fmt.Sprintf("%d:PLAY-%s", b.ID, strings.Repeat("A", 30))
		emu.AddBot(tokens[a.Name], b)
		names[b.ID] = a.Name
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// The emulator outlives mynah: serve's last calls (confirming updates) must reach it.
	emuCtx, stopEmu := context.WithCancel(context.WithoutCancel(ctx))
	defer stopEmu()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	emuDone := make(chan error, 1)
	go func() { emuDone <- emu.Run(emuCtx, ln) }()
	cfg.Telegram.APIURL = "http://" + ln.Addr().String() // emu.URL is set once Run starts
	cfg.Telegram.Mode = "polling"

	// mynah runs exactly as under serve.
	ready := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- serve(ctx, cfg, serveOptions{Log: log, DBFile: dbFile, Tokens: tokens, Ready: func() { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-served:
		return err
	}

	user := playUser()
	switch {
	case o.Crew != "":
		var members []string
		for _, a := range agents {
			members = append(members, a.Name)
		}
		fmt.Fprintf(stdout, "You are in a group with the crew %s: %s. Every line you write goes to them; they answer in turn. /agents, /next, /stop and /crew reset work as in Telegram. Ctrl-D quits.\n", o.Crew, strings.Join(members, ", "))
		o.Group = true
	case o.Group:
		fmt.Fprintf(stdout, "You are in a group with %s (%s). It answers when you mention @%s, reply to it, or call it by name. Ctrl-D quits.\n", agent.Name, agent.Model, botUser.Username)
	default:
		fmt.Fprintf(stdout, "You are chatting with %s (%s) in a private chat. /reset starts over; Ctrl-D quits.\n", agent.Name, agent.Model)
	}
	fmt.Fprintln(stdout, "Send media with /photo PATH [caption], /voice PATH, /sticker SET EMOJI, /file PATH [caption].")
	go printReplies(ctx, emu.Subscribe(ctx), names, stdout)

	lines := bufio.NewScanner(stdin)
	lines.Buffer(make([]byte, 64*1024), 1<<20)
	for lines.Scan() {
		text := strings.TrimSpace(lines.Text())
		if text == "" {
			continue
		}
		text, opts, err := playInput(emu, text)
		if err != nil {
			fmt.Fprintln(stdout, "play:", err)
			continue
		}
		if o.Group {
			emu.SendGroup(chat, user, text, opts...)
		} else {
			emu.SendPrivate(user, text, opts...)
		}
	}
	if ctx.Err() == nil {
		// Input ended (Ctrl-D or the end of a piped script): let the agent finish answering.
		waitQuiet(ctx, emu, filepath.Join(cfg.DataDir, dbFile), tokens)
	}
	cancel()
	err = <-served
	stopEmu()
	<-emuDone
	return err
}

// printReplies prints what the bot does as it happens: messages, stickers, reactions,
// and edits (in a group a streamed answer is posted early and then edited into the whole
// answer; only the last edit is the answer).
func printReplies(ctx context.Context, events <-chan telegramtest.Event, names map[int64]string, w io.Writer) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			bot := ev.Message.BotID
			if ev.Kind == telegramtest.EventReaction {
				bot = ev.Reaction.BotID
			}
			if line := replyLine(ev, names[bot]); line != "" {
				fmt.Fprintln(w, line)
			}
		}
	}
}

// replyLine is how play shows one event, or "" for events it does not show.
func replyLine(ev telegramtest.Event, name string) string {
	switch ev.Kind {
	case telegramtest.EventSent:
		if st := ev.Message.Message.Sticker; st != nil {
			return fmt.Sprintf("%s: [sticker %s]", name, st.Emoji)
		}
		return fmt.Sprintf("%s: %s", name, ev.Message.Text)
	case telegramtest.EventEdited:
		return fmt.Sprintf("%s (edited #%d): %s", name, ev.Message.MessageID, ev.Message.Text)
	case telegramtest.EventReaction:
		var emoji []string
		for _, r := range ev.Reaction.Reaction {
			emoji = append(emoji, r.Emoji)
		}
		return fmt.Sprintf("%s reacted %s to message #%d", name, strings.Join(emoji, ""), ev.Reaction.MessageID)
	}
	return ""
}

// waitQuiet returns once the emulator has delivered every update and the agents (by
// name, with their bots' tokens) have no queued turn or undelivered reply and no crew
// cycle is under way (checked on the database), or after two minutes.
func waitQuiet(ctx context.Context, emu *telegramtest.Server, dbPath string, agents map[string]string) {
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return
	}
	defer db.Close()
	deadline := time.Now().Add(2 * time.Minute)
	quietFor := 0
	for time.Now().Before(deadline) && ctx.Err() == nil {
		busy := false
		for agent, token := range agents {
			turns, err1 := db.PendingTurns(ctx, agent, time.Now(), 1)
			parts, err2 := db.PendingParts(ctx, agent, 1)
			busy = busy || err1 != nil || err2 != nil || len(turns) > 0 || len(parts) > 0 || len(emu.Pending(token)) > 0
		}
		cycles, err := db.ActiveCrews(ctx)
		if !busy && err == nil && len(cycles) == 0 {
			// Twice in a row: an update may be between the emulator and the store.
			if quietFor++; quietFor >= 2 {
				return
			}
		} else {
			quietFor = 0
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// playInput turns a line typed in play into a message: text, or one of the media inputs
// /photo PATH [caption], /voice PATH, /sticker SET EMOJI and /file PATH [caption], whose
// file is stored in the emulator for the bot to download as from Telegram.
func playInput(emu *telegramtest.Server, line string) (string, []telegramtest.MessageOption, error) {
	cmd, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	read := func() ([]byte, string, error) {
		path, caption, _ := strings.Cut(rest, " ")
		if path == "" {
			return nil, "", fmt.Errorf("%s needs a file: %s PATH", cmd, cmd)
		}
		data, err := os.ReadFile(path)
		return data, strings.TrimSpace(caption), err
	}
	switch cmd {
	case "/photo":
		data, caption, err := read()
		if err != nil {
			return "", nil, err
		}
		id, _ := emu.AddFile(data, telegramtest.KindPhoto)
		return caption, []telegramtest.MessageOption{telegramtest.WithPhoto(id)}, nil
	case "/voice":
		data, caption, err := read()
		if err != nil {
			return "", nil, err
		}
		id, _ := emu.AddFile(data, telegramtest.KindVoice)
		return caption, []telegramtest.MessageOption{telegramtest.WithVoice(id, oggSeconds(data))}, nil
	case "/file":
		data, caption, err := read()
		if err != nil {
			return "", nil, err
		}
		path, _, _ := strings.Cut(rest, " ")
		id, _ := emu.AddFile(data, telegramtest.KindDocument)
		return caption, []telegramtest.MessageOption{telegramtest.WithDocument(id, filepath.Base(path))}, nil
	case "/sticker":
		set, emoji, _ := strings.Cut(rest, " ")
		if set == "" || strings.TrimSpace(emoji) == "" {
			return "", nil, errors.New("/sticker needs a set and an emoji: /sticker SET EMOJI")
		}
		emoji = strings.TrimSpace(emoji)
		return "", []telegramtest.MessageOption{telegramtest.WithSticker(playSticker(emu, set, emoji), emoji, set)}, nil
	}
	return line, nil, nil
}

// playSets are the sticker sets play made in its emulator: set name → emoji → file id.
// A set is made again, with one sticker more, the first time an emoji of it is asked for.
var playSets = map[string]map[string]string{}

// playSticker returns the file id of the sticker of set with emoji, making it in the
// emulator (getStickerSet answers for it then) when it is new. Its picture is a square
// of a colour of its own: the emulator has no real artwork, and curated descriptions
// (media/*.json, matched by set and emoji) say what a real sticker shows.
func playSticker(emu *telegramtest.Server, set, emoji string) string {
	if id, ok := playSets[set][emoji]; ok {
		return id
	}
	emojis := []string{emoji}
	for e := range playSets[set] {
		emojis = append(emojis, e)
	}
	files := make([]telegramtest.StickerFile, len(emojis))
	for i, e := range emojis {
		files[i] = telegramtest.StickerFile{Emoji: e, Data: squarePNG(e)}
	}
	ids := map[string]string{}
	for _, st := range emu.AddStickerSetFiles(set, set, files...).Stickers {
		ids[st.Emoji] = st.FileID
	}
	playSets[set] = ids
	return ids[emoji]
}

// squarePNG is a 64×64 PNG of a colour derived from key.
func squarePNG(key string) []byte {
	h := fnv.New32a()
	h.Write([]byte(key))
	sum := h.Sum32()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{R: uint8(sum), G: uint8(sum >> 8), B: uint8(sum >> 16), A: 255}}, image.Point{}, draw.Src)
	var b bytes.Buffer
	_ = png.Encode(&b, img) // an in-memory RGBA image always encodes
	return b.Bytes()
}

// oggSeconds is the length of an Ogg Opus file, read from the granule position of its
// last page (48,000 per second for Opus); 0 when it cannot tell.
func oggSeconds(data []byte) int {
	i := bytes.LastIndex(data, []byte("OggS"))
	if i < 0 || len(data) < i+14 {
		return 0
	}
	granule := binary.LittleEndian.Uint64(data[i+6 : i+14])
	return int((granule + 47999) / 48000)
}

// playAgents are the agents play runs, the one to talk to first: the agent picked, or
// the members of the crew o names, whose crew then works in chat and answers every line.
// The person at the terminal is their owner here: no pairing, no allowlist, no group
// approval.
func playAgents(cfg *config, o playOptions, chat int64) ([]agentConfig, error) {
	var agents []agentConfig
	if o.Crew == "" {
		a, err := pickAgent(cfg, o.Agent)
		if err != nil {
			return nil, err
		}
		agents = []agentConfig{a}
		cfg.Crews = nil
	} else {
		i := slices.IndexFunc(cfg.Crews, func(c crewConfig) bool { return strings.EqualFold(c.Name, o.Crew) })
		if i < 0 {
			var names []string
			for _, c := range cfg.Crews {
				names = append(names, c.Name)
			}
			return nil, usageError{fmt.Errorf("--crew %q: no such crew in mynah.yaml (crews: %s)", o.Crew, strings.Join(names, ", "))}
		}
		c := cfg.Crews[i]
		c.Chat = mynah.ChatID(chat)
		cfg.Crews = []crewConfig{c}
		for _, m := range c.Members {
			a, _ := agentNamed(cfg.Agents, m.Agent)
			a.Policy.Trigger = access.Always
			agents = append(agents, a)
		}
	}
	for i := range agents {
		agents[i].Policy.Private = access.Open
		agents[i].Policy.ApprovedGroups = false
		agents[i].Policy.Groups = nil
	}
	cfg.Agents = agents
	return agents, nil
}

// playBot is the emulator's bot account of a, the i-th agent of play.
func playBot(a agentConfig, i int) telegramtest.BotUser {
	return telegramtest.BotUser{ID: int64(1000001 + i), FirstName: a.Name, Username: strings.ToLower(a.Name) + "_bot", CanReadAllGroupMessages: true}
}
