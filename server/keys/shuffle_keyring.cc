// The shuffle keyring file; see the header.
#include "server/keys/shuffle_keyring.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/base/file_text.h"
#include "common/base/status_macros.h"
#include "common/crypto/random_bytes.h"
#include "proto/ldp/storage/v1/storage.pb.h"
#include "proto/sealing/sealed_report.h"

namespace ldp {
namespace {

using storage::v1::ShuffleHpkeKey;
using KeyringProto = storage::v1::ShuffleKeyring;

absl::StatusOr<std::string> RandomSeed() {
  std::string seed(32, '\0');
  RETURN_IF_ERROR(FillRandomBytes(seed.data(), seed.size()));
  return seed;
}

absl::StatusOr<ShuffleHpkeKey> FreshSealingKey(absl::Time now) {
  ShuffleHpkeKey key;
  ASSIGN_OR_RETURN(*key.mutable_seed(), RandomSeed());
  key.set_created_unix_seconds(absl::ToUnixSeconds(now));
  return key;
}

// Temporary file, fsync, rename, fsync of the folder: a crash leaves the
// old file or the new one, never a torn one.
absl::Status WriteAtomically(const std::string& path, const std::string& data) {
  const std::string temporary = path + ".tmp";
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create the shuffle keyring ", temporary));
  }
  const bool written = write(fd, data.data(), data.size()) ==
                           static_cast<ssize_t>(data.size()) &&
                       fsync(fd) == 0;
  close(fd);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot write the shuffle keyring ", path));
  }
  const size_t slash = path.find_last_of('/');
  const std::string folder =
      slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const int dir = open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    fsync(dir);
    close(dir);
  }
  return absl::OkStatus();
}

absl::StatusOr<KeyringProto> ReadProto(const std::string& path) {
  ASSIGN_OR_RETURN(const std::string bytes,
                   ReadFileText(path, "shuffle keyring"));
  KeyringProto proto;
  if (!proto.ParseFromString(bytes) || proto.hpke_keys().empty()) {
    return absl::DataLossError(absl::StrCat(
        "shuffle keyring ", path, " is not a keyring this server wrote"));
  }
  return proto;
}

absl::StatusOr<KeyringProto> CreateProto(absl::Time now) {
  KeyringProto proto;
  ASSIGN_OR_RETURN(*proto.add_hpke_keys(), FreshSealingKey(now));
  ASSIGN_OR_RETURN(*proto.mutable_ticket_seed(), RandomSeed());
  return proto;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ShuffleKeyring>> ShuffleKeyring::LoadOrCreate(
    const std::string& path, absl::Time now) {
  absl::StatusOr<KeyringProto> proto = ReadProto(path);
  if (absl::IsNotFound(proto.status())) {
    ASSIGN_OR_RETURN(proto, CreateProto(now));
    RETURN_IF_ERROR(WriteAtomically(path, proto->SerializeAsString()));
    std::printf("ldp-server: shuffle keys written to %s\n", path.c_str());
  }
  if (!proto.ok()) return proto.status();
  return FromProto(*proto, path);
}

absl::StatusOr<std::unique_ptr<ShuffleKeyring>> ShuffleKeyring::Rotate(
    const std::string& path, absl::Time now) {
  absl::StatusOr<KeyringProto> old = ReadProto(path);
  if (absl::IsNotFound(old.status())) return LoadOrCreate(path, now);
  if (!old.ok()) return old.status();
  KeyringProto proto;
  *proto.mutable_ticket_seed() = old->ticket_seed();
  ASSIGN_OR_RETURN(*proto.add_hpke_keys(), FreshSealingKey(now));
  for (int i = 0; i + 1 < kKeptSealingKeys && i < old->hpke_keys_size(); ++i) {
    *proto.add_hpke_keys() = old->hpke_keys(i);
  }
  RETURN_IF_ERROR(WriteAtomically(path, proto.SerializeAsString()));
  return FromProto(proto, path);
}

absl::StatusOr<std::unique_ptr<ShuffleKeyring>> ShuffleKeyring::FromProto(
    const storage::v1::ShuffleKeyring& proto, const std::string& path) {
  const auto corrupt = [&path](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("shuffle keyring ", path, ": ", why));
  };
  std::unique_ptr<ShuffleKeyring> keyring(new ShuffleKeyring());
  for (const ShuffleHpkeKey& key : proto.hpke_keys()) {
    absl::StatusOr<HpkeKeyPair> pair = DeriveHpkeKeyPair(key.seed());
    if (!pair.ok()) return corrupt(pair.status().message());
    auto owned = std::make_unique<HpkeKeyPair>(*pair);
    std::string id = HpkeKeyId(HpkeKeyBytes(owned->public_key));
    keyring->sealing_.push_back({std::move(owned), std::move(id)});
  }
  absl::StatusOr<Ed25519KeyPair> ticket =
      Ed25519KeyPairFromSeed(proto.ticket_seed());
  if (!ticket.ok()) return corrupt(ticket.status().message());
  keyring->ticket_ = *ticket;
  return keyring;
}

std::string_view ShuffleKeyring::current_public_key() const {
  return HpkeKeyBytes(current().public_key);
}

const HpkeKeyPair* ShuffleKeyring::Find(std::string_view key_id) const {
  for (const SealingKey& key : sealing_) {
    if (key.id == key_id) return key.pair.get();
  }
  return nullptr;
}

std::vector<std::string> ShuffleKeyring::key_ids() const {
  std::vector<std::string> ids;
  for (const SealingKey& key : sealing_) ids.push_back(key.id);
  return ids;
}

std::string ShuffleKeyring::ticket_public_key_hex() const {
  return absl::BytesToHexString(absl::string_view(
      reinterpret_cast<const char*>(ticket_.public_key.data()),
      ticket_.public_key.size()));
}

}  // namespace ldp
