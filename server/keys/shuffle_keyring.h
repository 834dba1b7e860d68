// The server's keys for shuffled studies: the X25519 keys agents seal
// reports to and the Ed25519 key that signs their shuffle tickets, kept in
// one file so that a restart opens every batch sealed before it.
//
// Why a file and not the store: the keys are secrets the database's
// readers (backups, analysts' replicas) need not hold, and the file can be
// mounted from a secret store. It is written atomically (temporary file,
// fsync, rename) with mode 0600.
//
// Rotation: Rotate() puts a fresh sealing key first and keeps the one
// before it, so reports sealed to the previous key (still held by a
// shuffler, or in flight) still open. A second rotation drops the oldest:
// rotate at most once per longest round. The ticket key does not rotate;
// a shuffler is configured with its public half.
#ifndef LDP_SERVER_KEYS_SHUFFLE_KEYRING_H_
#define LDP_SERVER_KEYS_SHUFFLE_KEYRING_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/crypto/ed25519.h"
#include "common/crypto/hpke_kem.h"

namespace ldp {
namespace storage::v1 {
class ShuffleKeyring;
}  // namespace storage::v1

// Sealing keys kept: the current one and the one before it.
inline constexpr int kKeptSealingKeys = 2;

// Immutable once loaded: safe to read from any thread.
class ShuffleKeyring {
 public:
  // Reads `path`, or creates it with fresh keys if it does not exist.
  // DATA_LOSS for a file that is not a keyring; the OS error otherwise.
  static absl::StatusOr<std::unique_ptr<ShuffleKeyring>> LoadOrCreate(
      const std::string& path, absl::Time now);
  // Writes a fresh sealing key first (keeping kKeptSealingKeys in all)
  // durably to `path`, then loads the result.
  static absl::StatusOr<std::unique_ptr<ShuffleKeyring>> Rotate(
      const std::string& path, absl::Time now);

  // The key agents seal to now, its 32-byte public key and 8-byte id.
  const HpkeKeyPair& current() const { return *sealing_.front().pair; }
  std::string_view current_public_key() const;
  const std::string& current_key_id() const { return sealing_.front().id; }
  // The kept key with this id, or null.
  const HpkeKeyPair* Find(std::string_view key_id) const;
  // Every kept key id, newest first.
  std::vector<std::string> key_ids() const;

  const Ed25519KeyPair& ticket_key() const { return ticket_; }
  // The ticket key's public half as 64 lower-case hex digits: what a
  // shuffler's --ticket_key_file holds.
  std::string ticket_public_key_hex() const;

 private:
  struct SealingKey {
    std::unique_ptr<HpkeKeyPair> pair;
    std::string id;
  };
  ShuffleKeyring() = default;
  static absl::StatusOr<std::unique_ptr<ShuffleKeyring>> FromProto(
      const storage::v1::ShuffleKeyring& proto, const std::string& path);

  std::vector<SealingKey> sealing_;
  Ed25519KeyPair ticket_;
};

}  // namespace ldp

#endif  // LDP_SERVER_KEYS_SHUFFLE_KEYRING_H_
