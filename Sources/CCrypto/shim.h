// OpenSSL's libcrypto (the one libcurl already links), for the S3 signers' SHA-256 and HMAC.
// Only what Swift can call as it is: the EVP digest functions and one-shot HMAC().
#ifndef COURIER_CCRYPTO_SHIM_H
#define COURIER_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#endif
