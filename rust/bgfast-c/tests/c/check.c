/* A C program over libbgfast, run by tests/test_c_abi.py, which checks what it prints
 * against the Python package's answers.
 *
 *   check            reads lines "POSITION_ID DIE1 DIE2" on stdin and prints, per line:
 *                      ID <the id read back through bgfast_position_to_id>
 *                      MOVES <count> <result ids in bgfast's order>
 *                      TEXTS <the results' plays, in the same order, joined by '|'>
 *                      BEST <the best result's id> <its play>
 *                      EVAL <five probabilities>
 *                    then, for all the positions at once (bgfast_evaluate_batch):
 *                      BATCH <five probabilities> (one line a position)
 *   check --errors   calls every function with bad input and prints one line per call:
 *                      ERR <case> <code> <bgfast_last_error()>
 *                    and checks that no buffer was written past its end.
 *   check --exiting  calls the functions from a thread-key destructor and an atexit
 *                    handler, which run after the library's thread-locals are gone, and
 *                    prints "EXITED <codes>" from the handler.
 *   check --rollout  reads lines "POSITION_ID GAMES SEED THREADS NET TRUNCATE VR CUBEFUL
 *                    CUBE_VALUE CUBE_OWNER JACOBY MATCH_LENGTH SCORE0 SCORE1 CRAWFORD STOP MET"
 *                    (MET a table's name, or - for the default)
 *                    on stdin, rolls each out (with a progress callback that stops after
 *                    STOP calls, none for 0) and prints per line:
 *                      ROLLOUT <games> <stopped> <7 means> <7 standard errors> <5 ends> */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bgfast.h"

static int failures = 0;

static void expect(int ok, const char *what) {
    if (!ok) {
        printf("FAIL %s\n", what);
        failures++;
    }
}

static int positions(void) {
    char line[256];
    bgfast_position *results = malloc(sizeof(bgfast_position) * BGFAST_MAX_MOVES);
    size_t read = 0, room = 64;
    bgfast_position *all = malloc(sizeof(bgfast_position) * room);
    if (results == NULL || all == NULL) return 1;
    while (fgets(line, sizeof line, stdin)) {
        char id[64];
        int d1, d2;
        if (sscanf(line, "%63s %d %d", id, &d1, &d2) != 3) continue;
        bgfast_position pos;
        if (bgfast_position_from_id(id, &pos) != BGFAST_OK) {
            printf("FAIL from_id %s: %s\n", id, bgfast_last_error());
            failures++;
            continue;
        }
        char back[15];
        expect(bgfast_position_to_id(&pos, back) == BGFAST_OK, "to_id");
        printf("ID %s\n", back);
        size_t count = 0;
        int code = bgfast_moves(&pos, d1, d2, results, BGFAST_MAX_MOVES, &count);
        if (code != BGFAST_OK) {
            printf("MOVES error %d %s\n", code, bgfast_last_error());
        } else {
            printf("MOVES %zu", count);
            for (size_t i = 0; i < count; i++) {
                char rid[15];
                expect(bgfast_position_to_id(&results[i], rid) == BGFAST_OK, "result id");
                printf(" %s", rid);
            }
            printf("\nTEXTS ");
            for (size_t i = 0; i < count; i++) {
                char play[BGFAST_MOVE_TEXT_BUFFER];
                expect(bgfast_move_text(&pos, d1, d2, &results[i], play, sizeof play) == BGFAST_OK,
                       "move text");
                printf("%s%s", i ? "|" : "", play);
            }
            printf("\n");
            bgfast_position best;
            char play[BGFAST_MOVE_TEXT_BUFFER], bid[15];
            expect(bgfast_best_move(&pos, d1, d2, &best, play, sizeof play) == BGFAST_OK, "best");
            expect(bgfast_position_to_id(&best, bid) == BGFAST_OK, "best id");
            printf("BEST %s %s\n", bid, play);
        }
        float p[5];
        expect(bgfast_evaluate(&pos, p) == BGFAST_OK, "evaluate");
        printf("EVAL %.9g %.9g %.9g %.9g %.9g\n", p[0], p[1], p[2], p[3], p[4]);
        if (read == room) {
            bgfast_position *more = realloc(all, sizeof(bgfast_position) * (room *= 2));
            if (more == NULL) return 1;
            all = more;
        }
        all[read++] = pos;
    }
    float *batch = malloc(sizeof(float) * 5 * (read ? read : 1));
    if (batch == NULL) return 1;
    expect(bgfast_evaluate_batch(all, read, batch, 0) == BGFAST_OK, "evaluate_batch");
    for (size_t i = 0; i < read; i++) {
        const float *p = batch + 5 * i;
        printf("BATCH %.9g %.9g %.9g %.9g %.9g\n", p[0], p[1], p[2], p[3], p[4]);
    }
    free(batch);
    free(all);
    free(results);
    return 0;
}

#define CANARY 0x5A

static void report(const char *name, int code) {
    printf("ERR %s %d %s\n", name, code, bgfast_last_error());
}

static int errors(void) {
    bgfast_position start, pos;
    expect(bgfast_position_from_id("4HPwATDgc/ABMA", &start) == BGFAST_OK, "start");
    expect(strcmp(bgfast_last_error(), "") == 0, "no message after a success");

    report("from_id_null_id", bgfast_position_from_id(NULL, &pos));
    report("from_id_null_out", bgfast_position_from_id("4HPwATDgc/ABMA", NULL));
    report("from_id_short", bgfast_position_from_id("4HPw", &pos));
    report("from_id_garbage", bgfast_position_from_id("!!!!!!!!!!!!!!", &pos));
    report("from_id_too_many", bgfast_position_from_id("//////////////", &pos));
    report("from_id_not_utf8", bgfast_position_from_id("\xff\xfe", &pos));
    /* A line read with fgets keeps its newline: the message must name it. */
    report("from_id_newline", bgfast_position_from_id("4HPwATDgc/ABMA\n", &pos));
    /* 15 characters and no NUL, ending where the memory does: reading a byte more faults.
     * The library reads at most 15 bytes of an ID. */
    long page = sysconf(_SC_PAGESIZE);
    char *pages = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    expect(pages != MAP_FAILED && mprotect(pages + page, (size_t)page, PROT_NONE) == 0,
           "a guard page");
    char *unterminated = pages + page - 15;
    memcpy(unterminated, "4HPwATDgc/ABMAA", 15);
    report("from_id_unterminated", bgfast_position_from_id(unterminated, &pos));
    munmap(pages, 2 * (size_t)page);

    char id[16];
    memset(id, CANARY, sizeof id);
    report("to_id_null_pos", bgfast_position_to_id(NULL, id));
    report("to_id_null_out", bgfast_position_to_id(&start, NULL));
    bgfast_position bad = start;
    bad.checkers[0][3] = 9; /* 24 checkers */
    report("to_id_too_many", bgfast_position_to_id(&bad, id));
    expect(id[0] == CANARY, "a refused to_id writes nothing");
    bgfast_position shared = start;
    shared.checkers[1][23] = 0;
    shared.checkers[1][0] = 2; /* the opponent's 1-point is the mover's 24, held by the mover */
    report("to_id_shared_point", bgfast_position_to_id(&shared, id));
    expect(bgfast_position_to_id(&start, id) == BGFAST_OK, "to_id");
    expect(id[14] == 0 && id[15] == CANARY, "to_id writes 15 bytes exactly");

    bgfast_position buffer[20];
    memset(buffer, CANARY, sizeof buffer);
    size_t count = 12345;
    report("moves_die_0", bgfast_moves(&start, 0, 3, buffer, 16, &count));
    report("moves_die_7", bgfast_moves(&start, 3, 7, buffer, 16, &count));
    report("moves_die_negative", bgfast_moves(&start, -1, 3, buffer, 16, &count));
    report("moves_null_count", bgfast_moves(&start, 3, 1, buffer, 16, NULL));
    report("moves_null_results", bgfast_moves(&start, 3, 1, NULL, 16, &count));
    report("moves_bad_position", bgfast_moves(&bad, 3, 1, buffer, 16, &count));
    count = 0;
    report("moves_too_small", bgfast_moves(&start, 3, 1, buffer, 15, &count));
    printf("NEEDED %zu\n", count);
    expect(((unsigned char *)buffer)[0] == CANARY, "a refused moves writes no result");
    count = 0;
    report("moves_size_query", bgfast_moves(&start, 1, 1, NULL, 0, &count));
    printf("NEEDED %zu\n", count);
    expect(bgfast_moves(&start, 3, 1, buffer, 16, &count) == BGFAST_OK && count == 16,
           "16 results fit in 16");
    expect(((unsigned char *)&buffer[16])[0] == CANARY, "moves writes count results only");
    bgfast_position over;
    memset(&over, 0, sizeof over);
    over.checkers[1][5] = 15; /* the side to move has borne off all 15 */
    count = 777;
    report("moves_game_over", bgfast_moves(&over, 3, 1, buffer, 20, &count));
    printf("GAME_OVER_COUNT %zu\n", count); /* 0: nothing to play */

    float p[6] = {9, 9, 9, 9, 9, 9};
    report("evaluate_null_pos", bgfast_evaluate(NULL, p));
    report("evaluate_null_out", bgfast_evaluate(&start, NULL));
    report("evaluate_bad", bgfast_evaluate(&bad, p));
    /* bgfast_version cannot fail and leaves the message of the last call as it is. */
    printf("VERSION %s\n", bgfast_version());
    printf("AFTER_VERSION %s\n", bgfast_last_error());
    expect(p[0] == 9 && p[4] == 9, "a refused evaluate writes nothing");
    expect(bgfast_evaluate(&start, p) == BGFAST_OK && p[5] == 9, "evaluate writes 5 floats");

    bgfast_position best, twice[2];
    char play[BGFAST_MOVE_TEXT_BUFFER];
    memset(play, CANARY, sizeof play);
    report("best_move_null_result", bgfast_best_move(&start, 3, 1, NULL, play, sizeof play));
    report("best_move_game_over", bgfast_best_move(&over, 3, 1, &best, play, sizeof play));
    report("best_move_bad_dice", bgfast_best_move(&start, 3, 9, &best, play, sizeof play));
    report("best_move_text_too_small", bgfast_best_move(&start, 3, 1, &best, play, 7));
    expect(play[0] == CANARY, "a refused best_move writes no text");
    report("move_text_null_text", bgfast_move_text(&start, 3, 1, &start, NULL, 64));
    report("move_text_null_result", bgfast_move_text(&start, 3, 1, NULL, play, sizeof play));
    report("move_text_illegal", bgfast_move_text(&start, 3, 1, &start, play, sizeof play));
    report("move_text_bad_result", bgfast_move_text(&start, 3, 1, &bad, play, sizeof play));
    expect(play[0] == CANARY, "a refused move_text writes nothing");
    twice[0] = start;
    twice[1] = bad;
    memset(p, 0, sizeof p);
    report("batch_bad_position", bgfast_evaluate_batch(twice, 2, p, 1));
    report("batch_threads", bgfast_evaluate_batch(twice, 1, p, 1000));
    report("batch_null", bgfast_evaluate_batch(NULL, 1, p, 1));
    expect(p[0] == 0 && p[4] == 0, "a refused batch writes nothing");
    expect(bgfast_evaluate_batch(NULL, 0, NULL, 0) == BGFAST_OK, "an empty batch");

    bgfast_rollout_settings s;
    bgfast_rollout_result r;
    memset(&r, CANARY, sizeof r);
    report("rollout_defaults_null", bgfast_rollout_defaults(NULL));
    expect(bgfast_rollout_defaults(&s) == BGFAST_OK && s.games == 1296 && s.truncate < 0,
           "rollout defaults");
    s.games = 4;
    report("rollout_null_result", bgfast_rollout(&start, &s, NULL, NULL, NULL));
    report("rollout_null_settings", bgfast_rollout(&start, NULL, NULL, NULL, &r));
    report("rollout_bad_position", bgfast_rollout(&bad, &s, NULL, NULL, &r));
#define ROLLOUT_CASE(name, field, value)                                   \
    do {                                                                   \
        bgfast_rollout_settings t = s;                                     \
        t.field = value;                                                   \
        report(name, bgfast_rollout(&start, &t, NULL, NULL, &r));          \
    } while (0)
    ROLLOUT_CASE("rollout_no_games", games, 0);
    ROLLOUT_CASE("rollout_threads", threads, 1000);
    ROLLOUT_CASE("rollout_net", net, 7);
    ROLLOUT_CASE("rollout_flag", cubeful, 2);
    ROLLOUT_CASE("rollout_cube_life", cube_life, 1.5);
    ROLLOUT_CASE("rollout_cube_value", cube_value, 3);
    ROLLOUT_CASE("rollout_cube_owner", cube_owner, 5);
    ROLLOUT_CASE("rollout_owned_at_one", cube_owner, BGFAST_CUBE_MOVER);
    ROLLOUT_CASE("rollout_money_score", score[0], 2);
    ROLLOUT_CASE("rollout_money_met", met, "woolsey");
    {
        bgfast_rollout_settings t = s;
        t.match_length = 5;
        t.score[1] = 5;
        report("rollout_score_past", bgfast_rollout(&start, &t, NULL, NULL, &r));
        t.score[1] = 0;
        t.jacoby = 1;
        report("rollout_match_jacoby", bgfast_rollout(&start, &t, NULL, NULL, &r));
        t.jacoby = 0;
        t.crawford = 1;
        report("rollout_crawford_no_one_away", bgfast_rollout(&start, &t, NULL, NULL, &r));
        t.score[0] = 4;
        t.cube_value = 2;
        report("rollout_crawford_cube", bgfast_rollout(&start, &t, NULL, NULL, &r));
        t.cube_value = 1;
        t.met = "no-such-table";
        report("rollout_met", bgfast_rollout(&start, &t, NULL, NULL, &r));
    }
    expect(((unsigned char *)&r)[0] == CANARY, "a refused rollout writes nothing");
    return 0;
}

static int calls_left;

static int stop_after(uint64_t done, uint64_t total, void *context) {
    (void)done;
    (void)total;
    (void)context;
    return --calls_left <= 0;
}

static int rollouts(void) {
    char line[512], id[64], met[64];
    while (fgets(line, sizeof line, stdin)) {
        bgfast_rollout_settings s;
        unsigned long long games, seed;
        int threads, net, truncate, vr, cubeful, value, owner, jacoby, length, s0, s1, crawford,
            stop;
        if (sscanf(line, "%63s %llu %llu %d %d %d %d %d %d %d %d %d %d %d %d %d %63s", id, &games,
                   &seed, &threads, &net, &truncate, &vr, &cubeful, &value, &owner, &jacoby,
                   &length, &s0, &s1, &crawford, &stop, met) != 17)
            continue;
        bgfast_position pos;
        expect(bgfast_position_from_id(id, &pos) == BGFAST_OK, "rollout position");
        expect(bgfast_rollout_defaults(&s) == BGFAST_OK, "rollout defaults");
        s.games = games;
        s.seed = seed;
        s.threads = (uint32_t)threads;
        s.net = net;
        s.truncate = truncate;
        s.variance_reduction = vr;
        s.cubeful = cubeful;
        s.cube_value = (uint32_t)value;
        s.cube_owner = owner;
        s.jacoby = jacoby;
        s.match_length = (uint32_t)length;
        s.score[0] = (uint32_t)s0;
        s.score[1] = (uint32_t)s1;
        s.crawford = crawford;
        s.met = strcmp(met, "-") == 0 ? NULL : met;
        calls_left = stop;
        bgfast_rollout_result r;
        int code = bgfast_rollout(&pos, &s, stop ? stop_after : NULL, NULL, &r);
        if (code != BGFAST_OK) {
            printf("ROLLOUT error %d %s\n", code, bgfast_last_error());
            continue;
        }
        printf("ROLLOUT %llu %d", (unsigned long long)r.games, r.stopped);
        for (size_t k = 0; k < BGFAST_OUTPUTS; k++) printf(" %.17g", r.mean[k]);
        for (size_t k = 0; k < BGFAST_OUTPUTS; k++) printf(" %.17g", r.stderr[k]);
        for (size_t k = 0; k < BGFAST_ENDS; k++) printf(" %llu", (unsigned long long)r.ends[k]);
        printf("\n");
    }
    return 0;
}

/* Every function once, with good and bad input; the codes, comma-separated, in order. */
static void call_all(char *out, size_t size) {
    static bgfast_position results[BGFAST_MAX_MOVES];
    bgfast_position pos;
    char id[15];
    float p[5];
    size_t count = 0;
    int codes[6];
    codes[0] = bgfast_position_from_id("4HPwATDgc/ABMA", &pos);
    codes[1] = bgfast_position_to_id(&pos, id);
    codes[2] = bgfast_moves(&pos, 3, 1, results, BGFAST_MAX_MOVES, &count);
    codes[3] = bgfast_moves(&pos, 0, 1, results, 0, &count);
    codes[4] = bgfast_evaluate(&pos, p);
    codes[5] = bgfast_last_error()[0] != 0;
    snprintf(out, size, "%d,%d,%d,%d,%d,%d", codes[0], codes[1], codes[2], codes[3], codes[4],
             codes[5]);
}

static pthread_key_t key;
static char in_destructor[64];

static void key_destructor(void *unused) {
    (void)unused;
    call_all(in_destructor, sizeof in_destructor);
}

static void *thread_main(void *unused) {
    (void)unused;
    bgfast_position pos;
    float p[5];
    char codes[64];
    /* Every call once, so that every thread-local exists (and is destroyed before the
     * key's destructor runs): an evaluation from there answered BGFAST_ERROR_INTERNAL. */
    call_all(codes, sizeof codes);
    bgfast_position_from_id("4HPwATDgc/ABMA", &pos);
    expect(bgfast_evaluate(&pos, p) == BGFAST_OK, "evaluate in the thread");
    pthread_setspecific(key, &key);
    return NULL;
}

static void at_exit(void) {
    char codes[64];
    call_all(codes, sizeof codes);
    /* The codes must be the same as in a running thread: the calls work, only the
     * messages are lost. */
    printf("EXITED %s %s\n", in_destructor, codes);
    fflush(stdout);
}

static int exiting(void) {
    pthread_t thread;
    if (pthread_key_create(&key, key_destructor) != 0) return 1;
    if (pthread_create(&thread, NULL, thread_main, NULL) != 0) return 1;
    if (pthread_join(thread, NULL) != 0) return 1;
    atexit(at_exit);
    return 0;
}

int main(int argc, char **argv) {
    int status = (argc > 1 && strcmp(argv[1], "--errors") == 0)    ? errors()
                 : (argc > 1 && strcmp(argv[1], "--exiting") == 0) ? exiting()
                 : (argc > 1 && strcmp(argv[1], "--rollout") == 0) ? rollouts()
                                                                    : positions();
    printf("FAILURES %d\n", failures);
    return status != 0 || failures != 0;
}
